// SPDX-License-Identifier: Apache-2.0
// Which NVTX ranges (or user annotations) a kernel belongs to: those of its launching call's
// (input, rank, thread) that enclose the call (range start ≤ call start, call end ≤ range end).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::stats {

/// (range row, kernel row) for every kernel and every range enclosing its launching call: per
/// thread one sweep over the calls by start, the ranges begun so far kept by end.
[[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> nvtx_attributions(
    trace_model const& model);

/// Per row: the innermost range enclosing the kernel's launching call (the latest start, then
/// the earliest end), or -1 (not a kernel, or no range encloses its call).
[[nodiscard]] std::vector<std::int64_t> innermost_nvtx_range(trace_model const& model);

}  // namespace tracesweep::stats
