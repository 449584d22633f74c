// SPDX-License-Identifier: Apache-2.0
// The findings of a diagnosis as store rows: a kind, where, and the numbers as one JSON object
// (written by the output layer's JSON writer, so strings are escaped as everywhere else).
#pragma once

#include <vector>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/fleet/job_record.hpp>

namespace tracesweep::fleet {

/// Kinds: periodic_gaps, long_tail, tiny_kernel_burst, small_copies, sync, straggler,
/// late_arrival.
[[nodiscard]] std::vector<finding_record> finding_rows(diagnosis const& d);

}  // namespace tracesweep::fleet
