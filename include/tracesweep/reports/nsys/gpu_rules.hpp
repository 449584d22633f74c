// SPDX-License-Identifier: Apache-2.0
// nsys's expert-system rules gpu_gaps and gpu_time_util (`nsys analyze`, and the recipes of the
// same names) over the GPU operations of each (rank, device) of each input: its kernels,
// memcpys and memsets with start > 0, plus the profiler's overhead ranges of the rank
// (input_info::profiler_overhead) that lie strictly inside the device's span [first start, last
// end]. Rows name the process as nsys does: its process id (input_info::process_id; for Kineto
// and Paddle inputs the rank).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

struct gpu_gaps_options {
  std::int64_t min_gap_ns = 500'000'000;  ///< gaps longer than this (nsys: gap=500 ms)
  std::size_t rows = 50;                  ///< the longest this many per input (0 = all)
};

struct gpu_time_util_options {
  double threshold_pct = 50;  ///< chunks below this In-Use are reported
  std::int64_t chunks = 30;   ///< 1 to 1000 per device span
  std::size_t rows = 0;       ///< at most this many per input (0 = all)
};

/// A gap, or a run of low-utilization chunks, of one (rank, device).
struct gpu_rule_row {
  std::int64_t duration_ns = 0;
  std::int64_t start_ns = 0;
  std::int64_t pid = 0;  ///< the process id (input_info::process_id)
  std::int32_t device = 0;
  /// The device's CUDA context when the input names exactly one for it (nsys), else absent.
  std::optional<std::int64_t> context;
  double in_use_pct = 0;  ///< gpu_time_util: Σ op time in the run ÷ its length × 100
};

struct gpu_rule_table {
  std::string rule;              ///< "gpu_gaps" or "gpu_time_util"
  std::string source;            ///< the input's path
  std::int32_t recipe_rank = 0;  ///< the input's index among the inputs sorted by file name
  std::vector<gpu_rule_row> rows;
};

/// One table per input: the holes of the union of each device's GPU operations between its first
/// and last operation that last longer than min_gap_ns, by (duration desc, start, pid, device).
/// nsys pairs the k-th end with the (k+1)-th start in (start / end) order: a zero-length
/// operation splits a hole, as it does here.
[[nodiscard]] std::vector<gpu_rule_table> compute_gpu_gaps(trace_model const& model,
                                                           gpu_gaps_options const& o);

/// One table per input: each device's span cut into `chunks` chunks of ceil(span / chunks) ns
/// (the last one clipped to the span); a chunk's In-Use is Σ over the operations of their
/// overlap with it ÷ its length × 100 (a sum, not a union: concurrent streams can pass 100);
/// runs of consecutive chunks below the threshold are one row with their length-weighted In-Use.
/// Rows by (pid, device, start).
[[nodiscard]] std::vector<gpu_rule_table> compute_gpu_time_util(trace_model const& model,
                                                                gpu_time_util_options const& o);

/// The tables as nsys prints them: text (one titled table per input; Row#, In-Use (%) with one
/// decimal, Duration (ns), Start (ns), PID, Device ID, Context ID), CSV (every input's rows under
/// one header, with Rank and File columns when there are several) and JSON ([{rule, source,
/// rank, rows}]).
[[nodiscard]] output::result_set gpu_rule_results(std::vector<gpu_rule_table> tables);

}  // namespace tracesweep
