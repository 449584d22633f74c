// SPDX-License-Identifier: Apache-2.0
// nsys's cuda_kern_exec_trace and cuda_kern_exec_sum: each kernel with the API call that
// launched it (the trace model's launch links), split into three phases: the API call, the
// queue (from the call's end to the kernel's start, when the kernel starts later), and the
// kernel itself; total = kernel end − call start.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

struct kernel_exec_row {
  std::int64_t api_start = 0, api_duration = 0;
  std::optional<std::int64_t> queue_start, queue_duration;  ///< when the kernel starts after
  std::int64_t kernel_start = 0, kernel_duration = 0;
  std::int64_t total_duration = 0;  ///< kernel end − API start
  std::int64_t pid = 0;             ///< the process id (input_info::process_id)
  std::int64_t tid = -1;            ///< the calling thread
  std::int32_t device = 0;
  std::string api_name;     ///< without its _vNNNNN suffix
  std::string grid, block;  ///< "%4d %4d %4d" when the launch details were read, else empty
  std::string kernel_name;
};

/// A kernel row of the event table and the row of the call that launched it.
struct kernel_launch {
  std::size_t kernel = 0, call = 0;
};

/// Row `launch` of the trace, made from the event table `t` as it is written.
[[nodiscard]] kernel_exec_row kernel_exec_row_of(event_table const& t, kernel_launch launch);

/// One output table of the trace: its launches, by (API start, kernel start, kernel row). Rows
/// are made from the event table as a writer reaches them (kernel_exec_row_of).
struct kernel_exec_trace {
  std::string source;
  std::vector<kernel_launch> rows;
};

/// The trace of a job: its tables and the event table their rows come from, which must outlive
/// the result set made of it.
struct kernel_exec_traces {
  event_table const* events = nullptr;
  std::vector<kernel_exec_trace> tables;
};

/// The statistics of one phase: mean, median (mean of the two middle values), min, max and
/// sample standard deviation (0 for one value).
struct phase_stats {
  double avg = 0, median = 0, stddev = 0;
  std::int64_t min = 0, max = 0;
};

/// One (PID, TID, device, API name, kernel name).
struct kernel_exec_group {
  std::int64_t pid = 0;
  std::int64_t tid = -1;
  std::int32_t device = 0;
  std::int64_t count = 0;
  std::int64_t queued = 0;  ///< QCount: launches whose kernel started after the call ended
  phase_stats total, api, kernel;
  std::optional<phase_stats> queue;  ///< over the queued launches only; absent when none
  std::string api_name, kernel_name;
};

struct kernel_exec_summary {
  std::string source;
  std::vector<kernel_exec_group> rows;  ///< by (PID, TID, device, API name, kernel name)
};

/// One table per input, or one over all inputs with `merge`. Kernels no call launched are left
/// out.
[[nodiscard]] kernel_exec_traces compute_kernel_exec_trace(trace_model const& model, bool merge);
[[nodiscard]] std::vector<kernel_exec_summary> compute_kernel_exec_sum(trace_model const& model,
                                                                       backend& be, bool merge);

/// Trace columns: API Start (ns), API Dur (ns), Queue Start (ns), Queue Dur (ns), Kernel Start
/// (ns), Kernel Dur (ns), Total Dur (ns), PID, TID, DevId, API Function, GridXYZ, BlockXYZ,
/// Kernel Name.
[[nodiscard]] output::result_set kernel_exec_trace_results(kernel_exec_traces trace);
/// Summary columns: PID, TID, DevId, Count, QCount, then Avg, Med, Min, Max, StdDev (ns) of the
/// total (T…), API (A…), queue (Q…) and kernel (K…) phases, API Name, Kernel Name.
[[nodiscard]] output::result_set kernel_exec_sum_results(std::vector<kernel_exec_summary> tables);

}  // namespace tracesweep
