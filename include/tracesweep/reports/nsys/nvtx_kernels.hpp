// SPDX-License-Identifier: Apache-2.0
// nsys's nvtx_kern_sum: kernels attributed to every NVTX range (or user annotation) of their
// launching thread that encloses the launching call (range start ≤ call start and call end ≤
// range end), with the kernels' duration statistics per (range, style, PID, TID, kernel).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

struct nvtx_kernel_row {
  std::string range;
  std::string style;     ///< PushPop or StartEnd
  std::int64_t pid = 0;  ///< the process id (input_info::process_id)
  std::int64_t tid = -1;
  std::int64_t range_instances = 0;   ///< ranges of this name that enclose at least one launch
  std::int64_t kernel_instances = 0;  ///< kernels, once per enclosing range
  std::int64_t total = 0, min = 0, max = 0;
  double avg = 0, median = 0, stddev = 0;
  std::string kernel;
};

struct nvtx_kernel_table {
  std::string source;
  std::vector<nvtx_kernel_row> rows;  ///< by (range, style, PID, TID), total desc, kernel
};

/// One table per input, or one over all inputs with `merge`.
[[nodiscard]] std::vector<nvtx_kernel_table> compute_nvtx_kern_sum(trace_model const& model,
                                                                   backend& be, bool merge);

/// Columns: NVTX Range, Style, PID, TID, NVTX Inst, Kern Inst, Total Time (ns), Avg (ns),
/// Med (ns), Min (ns), Max (ns), StdDev (ns), Kernel Name.
[[nodiscard]] output::result_set nvtx_kern_sum_results(std::vector<nvtx_kernel_table> tables);

}  // namespace tracesweep
