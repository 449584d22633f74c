// SPDX-License-Identifier: Apache-2.0
// Names and titles of the nsys stats reports.
#include <tracesweep/reports/nsys/stats_reports.hpp>

namespace tracesweep {

std::string_view to_string(stats_report r) noexcept {
  switch (r) {
    case stats_report::cuda_gpu_kern_sum:
      return "cuda_gpu_kern_sum";
    case stats_report::cuda_gpu_mem_time_sum:
      return "cuda_gpu_mem_time_sum";
    case stats_report::cuda_gpu_mem_size_sum:
      return "cuda_gpu_mem_size_sum";
    case stats_report::cuda_api_sum:
      return "cuda_api_sum";
    case stats_report::nvtx_sum:
      return "nvtx_sum";
    case stats_report::osrt_sum:
      return "osrt_sum";
    case stats_report::cuda_gpu_kern_gb_sum:
      return "cuda_gpu_kern_gb_sum";
    case stats_report::cuda_gpu_sum:
      return "cuda_gpu_sum";
    case stats_report::cuda_api_gpu_sum:
      return "cuda_api_gpu_sum";
  }
  return "";
}

std::optional<stats_report> parse_stats_report(std::string_view s) noexcept {
  for (auto r : all_stats_reports)
    if (to_string(r) == s) return r;
  return std::nullopt;
}

std::string_view stats_report_title(stats_report r) noexcept {
  switch (r) {
    case stats_report::cuda_gpu_kern_sum:
      return "CUDA GPU Kernel Summary";
    case stats_report::cuda_gpu_mem_time_sum:
      return "CUDA GPU MemOps Summary (by Time)";
    case stats_report::cuda_gpu_mem_size_sum:
      return "CUDA GPU MemOps Summary (by Size)";
    case stats_report::cuda_api_sum:
      return "CUDA API Summary";
    case stats_report::nvtx_sum:
      return "NVTX Range Summary";
    case stats_report::osrt_sum:
      return "OS Runtime Summary";
    case stats_report::cuda_gpu_kern_gb_sum:
      return "CUDA GPU Kernel/Grid/Block Summary";
    case stats_report::cuda_gpu_sum:
      return "CUDA GPU Summary (Kernels/MemOps)";
    case stats_report::cuda_api_gpu_sum:
      return "CUDA Summary (API/Kernels/MemOps)";
  }
  return "";
}

}  // namespace tracesweep
