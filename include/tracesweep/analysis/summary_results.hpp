// SPDX-License-Identifier: Apache-2.0
// The summary as result tables for the output layer: devices, kernels, gaps and inputs.
#pragma once

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

/// Every table of `s` (JSON: every *_ns an integer; CSV: devices unless a table is named).
[[nodiscard]] output::result_set summary_results(summary const& s);

}  // namespace tracesweep
