// SPDX-License-Identifier: Apache-2.0
// nsys's nvtx_gpu_proj_sum: each NVTX range (or user annotation) projected onto the GPU — the
// span [first start, last end] of the GPU operations (kernels, memcpys, memsets) whose launching
// call lies inside the range on its thread — summarized per (range name, style).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

struct nvtx_projection_row {
  std::string range, style;
  std::int64_t total_projected = 0;  ///< Σ projected spans
  std::int64_t total_range = 0;      ///< Σ (end − start) of the same instances
  std::int64_t instances = 0;        ///< instances with at least one GPU operation
  double avg = 0, median = 0, stddev = 0;
  std::int64_t min = 0, max = 0;  ///< of the projected spans
  std::int64_t total_operations = 0;
  double avg_operations = 0;
  double avg_level = 0;     ///< nesting level among the thread's ranges (0 = top)
  double avg_children = 0;  ///< ranges directly inside
};

struct nvtx_projection_table {
  std::string source;
  std::vector<nvtx_projection_row> rows;  ///< by total projected desc, range, style
};

/// One table per input, or one over all inputs with `merge`.
[[nodiscard]] std::vector<nvtx_projection_table> compute_nvtx_gpu_proj_sum(trace_model const& model,
                                                                           backend& be, bool merge);

/// Columns: Range, Style, Total Proj Time (ns), Total Range Time (ns), Range Instances, Proj Avg
/// (ns), Proj Med (ns), Proj Min (ns), Proj Max (ns), Proj StdDev (ns), Total GPU Ops, Avg GPU
/// Ops, Avg Range Lvl, Avg Num Child.
[[nodiscard]] output::result_set nvtx_gpu_proj_sum_results(
    std::vector<nvtx_projection_table> tables);

}  // namespace tracesweep
