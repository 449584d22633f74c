// SPDX-License-Identifier: Apache-2.0
// The fleet report of one run of the results store, as result tables: the run, the worst
// devices by utilization, idle time by cause, the most expensive kernels, stragglers per job,
// the jobs whose verdict changed since their previous run, and the traces that failed.
#pragma once

#include <cstdint>

#include <tracesweep/fleet/results_store.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep::fleet {

struct report_options {
  std::int64_t top = 20;  ///< rows of the worst-devices and kernel tables (0 = all)
};

/// Tables: run, worst_devices, idle_by_cause, top_kernels, stragglers, verdict_changes, errors.
[[nodiscard]] output::result_set fleet_report(results_store const& store, run_info const& run,
                                              report_options const& options);

}  // namespace tracesweep::fleet
