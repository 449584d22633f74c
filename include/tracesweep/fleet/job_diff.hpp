// SPDX-License-Identifier: Apache-2.0
// Run-over-run comparison: two sets of job records (two traces or job directories analyzed now,
// or two runs of the results store), jobs matched by name. Kernels that got slower or faster
// (by total and by median, per rank), new and vanished kernels, and the changes in utilization,
// idle time by cause and mean step time; a regression is a change for the worse above a
// threshold (docs: README "Fleet scans"). Ranks pair by number, or by order where their
// numbers differ (rank_pairing).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <tracesweep/fleet/job_record.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep::fleet {

/// How diff pairs the ranks of a job's two sides: automatic (by number when both sides have the
/// same rank numbers, else by order), number (equal rank numbers), order (the i-th smallest rank
/// of each side).
enum class rank_pairing { automatic, number, order };

struct diff_options {
  /// Changes (relative, in percent) at or below this are not listed.
  double threshold_percent = 5.0;
  /// A change for the worse above this is a regression; none: nothing is one.
  std::optional<double> fail_above_percent;
  /// Kernels taking less than this share of their rank's kernel time (in both) are listed but
  /// never a regression: a 2 µs kernel 40 % slower costs nothing.
  double min_kernel_share = 0.01;
  rank_pairing pair_ranks = rank_pairing::automatic;
};

struct diff_result {
  output::result_set tables;  ///< jobs, kernels, devices, idle_by_cause, steps, regressions
  std::vector<std::string> regressions;  ///< one line each
  /// How the ranks were paired, one line per job whose two sides have different rank numbers.
  std::vector<std::string> notes;
};

/// Compares `before` with `after` (each: jobs with unique names).
[[nodiscard]] diff_result diff_jobs(std::vector<job_record> const& before,
                                    std::vector<job_record> const& after,
                                    diff_options const& options);

}  // namespace tracesweep::fleet
