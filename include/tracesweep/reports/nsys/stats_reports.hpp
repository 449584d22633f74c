// SPDX-License-Identifier: Apache-2.0
// The `nsys stats` summary reports (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum,
// cuda_gpu_mem_size_sum, cuda_api_sum, nvtx_sum, osrt_sum, cuda_gpu_kern_gb_sum, cuda_gpu_sum,
// cuda_api_gpu_sum) computed
// from the event table's columns by the backend's segmented statistics. Works on any input format's
// events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

enum class stats_report {
  cuda_gpu_kern_sum,
  cuda_gpu_mem_time_sum,
  cuda_gpu_mem_size_sum,
  cuda_api_sum,
  nvtx_sum,
  osrt_sum,
  cuda_gpu_kern_gb_sum,  ///< kernels by (name, grid, block)
  cuda_gpu_sum,          ///< kernels and memory operations, with a Category column
  cuda_api_gpu_sum,      ///< API calls, kernels and memory operations, with a Category column
};

/// Every report, in the order `--help` lists them.
inline constexpr stats_report all_stats_reports[] = {stats_report::cuda_gpu_kern_sum,
                                                     stats_report::cuda_gpu_mem_time_sum,
                                                     stats_report::cuda_gpu_mem_size_sum,
                                                     stats_report::cuda_api_sum,
                                                     stats_report::nvtx_sum,
                                                     stats_report::osrt_sum,
                                                     stats_report::cuda_gpu_kern_gb_sum,
                                                     stats_report::cuda_gpu_sum,
                                                     stats_report::cuda_api_gpu_sum};

[[nodiscard]] std::string_view to_string(stats_report r) noexcept;
[[nodiscard]] std::optional<stats_report> parse_stats_report(std::string_view s) noexcept;
/// nsys's title, e.g. "CUDA GPU Kernel Summary".
[[nodiscard]] std::string_view stats_report_title(stats_report r) noexcept;

/// One output row. Values are unrounded; writers round as nsys prints them.
struct stats_row {
  double time_percent = 0;  ///< total ÷ Σ totals of the table × 100 (not in mem_size_sum)
  std::int64_t total = 0;   ///< ns, or bytes for cuda_gpu_mem_size_sum
  std::int64_t count = 0;
  double avg = 0;
  double median = 0;  ///< mean of the two middle values for even counts
  std::int64_t min = 0;
  std::int64_t max = 0;
  double stddev = 0;  ///< sample standard deviation; 0 for one value
  /// nvtx_sum: "PushPop" or "StartEnd"; cuda_gpu_sum, cuda_api_gpu_sum: the category
  /// (CUDA_API, CUDA_KERNEL, MEMORY_OPER)
  std::string style;
  std::string grid, block;  ///< cuda_gpu_kern_gb_sum: "%4d %4d %4d" of X, Y, Z (empty: unknown)
  std::string name;         ///< kernel, operation, API, range or OS call name
};

struct stats_table {
  stats_report report = stats_report::cuda_gpu_kern_sum;
  std::string source;           ///< the input's path, or "all inputs" when merged
  std::vector<stats_row> rows;  ///< sorted by total desc, count desc, name, style
};

/// One table per input (in input order), or one over every input when `merge`. `nvtx_name`
/// (cuda_gpu_kern_sum only, nsys's `:nvtx-name`): kernels named "RANGE/KERNEL" after the
/// innermost NVTX range (or user annotation) of their launching thread around the launching
/// call; a kernel outside every range keeps its name.
[[nodiscard]] std::vector<stats_table> compute_stats_report(trace_model const& model, backend& be,
                                                            stats_report report, bool merge,
                                                            bool nvtx_name = false);

/// `name` without a trailing `_vNNNNN` API-version suffix (cudaLaunchKernel_v7000 →
/// cudaLaunchKernel).
[[nodiscard]] std::string_view strip_api_version(std::string_view name) noexcept;

}  // namespace tracesweep
