// SPDX-License-Identifier: Apache-2.0
// Kernel statistics by name: the one pipeline behind the per-kernel tables (stats
// cuda_gpu_kern_sum, Paddle's Kernel Summary, the TensorBoard kernel view). The kernel rows of a
// selection, grouped by (group, exact name), with exact duration statistics from
// backend::segmented_stats; each table derives its own columns and rounding from them. (The
// summary's kernels are the same segmented statistics, chained on the device inside
// backend::device_activity so that they need no upload of their own.)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/exact_stats.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/string_pool.hpp>

namespace tracesweep {

/// What one group of kernel statistics covers.
enum class kernel_grouping : std::uint8_t {
  job,    ///< every input together (group 0)
  input,  ///< per input file (group = input index)
  rank,   ///< per rank (group = index into trace_model::ranks())
};

struct kernel_selection {
  kernel_grouping grouping = kernel_grouping::job;
  /// Only kernels the job tables keep (trace_model::kept: Paddle drops kernels no runtime call
  /// launched).
  bool kept_only = false;
  /// Quantiles in [0, 1] each group's statistics carry (exact_stats::quantile_lo/hi).
  std::vector<double> quantiles;
};

/// Exact statistics of the durations (end − start, ns) of one kernel name in one group.
struct kernel_name_stats {
  std::uint32_t group = 0;
  string_id name = 0;
  exact_stats stats;  ///< stats.key is internal to the computation
};

/// Per (group, name) statistics of the kernel rows of `model.table()` that `selection` picks,
/// ordered by (group, name id); groups and names without kernels are absent.
[[nodiscard]] std::vector<kernel_name_stats> compute_kernel_stats(
    trace_model const& model, backend& be, kernel_selection const& selection = {});

}  // namespace tracesweep
