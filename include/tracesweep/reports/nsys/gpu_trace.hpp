// SPDX-License-Identifier: Apache-2.0
// nsys's cuda_gpu_trace report: every kernel, memcpy and memset of each input, one row each, by
// start, with its launch details (event_table::launch_details, read on request from nsys
// exports; absent for other inputs). The report holds the rows' indices only: each row's cells
// are made from the event table as a writer reaches them, so that listing millions of rows costs
// no more than their indices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

/// One row of the report, made from the event table as it is written.
struct gpu_trace_row {
  std::int64_t start_ns = 0, duration_ns = 0;
  std::int64_t correlation = -1;
  event_kind kind = event_kind::kernel;
  std::optional<device_details> details;
  std::int64_t bytes = 0;  ///< memcpy and memset
  std::int32_t device = 0;
  std::int64_t stream = -1;
  std::string device_label;  ///< "<GPU name> (<id>)" when the input names the GPU, else "<id>"
  std::string name;
};

/// Row `row` of `t` (a device activity row) as the report prints it.
[[nodiscard]] gpu_trace_row gpu_trace_row_of(event_table const& t, std::size_t row);

/// One output table: the event table's rows it lists, by (start, then table order).
struct gpu_trace_table {
  std::string source;
  std::vector<std::size_t> rows;
};

/// The report of a job: its tables and the event table their rows come from, which must outlive
/// the result set made of it (its rows are read as they are written).
struct gpu_trace {
  event_table const* events = nullptr;
  std::vector<gpu_trace_table> tables;
};

/// One table per input (or one over all of them with `merge`).
[[nodiscard]] gpu_trace compute_gpu_trace(trace_model const& model, bool merge);

/// As nsys prints them: Start (ns), Duration (ns), CorrId, GrdX, GrdY, GrdZ, BlkX, BlkY, BlkZ,
/// Reg/Trd, StcSMem (B), DymSMem (B), Bytes (B), Throughput (B/s), SrcMemKd, DstMemKd, Device,
/// Ctx, GreenCtx, Strm, Name. Throughput = bytes × (10^9 / duration) with the division done in
/// integers first (nsys's quirk), empty for a zero duration, a real where the product overflows
/// 64 bits (as SQLite, where nsys computes it, turns it into a REAL); a kernel's byte and
/// memory-kind cells and a copy's launch cells are empty. Text: one titled table per input; CSV:
/// one header (a File column with several inputs); JSON: [{report, source, rows}].
[[nodiscard]] output::result_set gpu_trace_results(gpu_trace report);

/// The Throughput (B/s) cell: nsys's `bytes * (1000000000 / duration)` as SQLite evaluates it.
[[nodiscard]] output::cell gpu_trace_throughput(std::int64_t bytes, std::int64_t duration_ns);

/// The label nsys prints for a memory kind (ENUM_CUDA_MEM_KIND), empty for -1.
[[nodiscard]] std::string_view memory_kind_label(std::int16_t kind) noexcept;

}  // namespace tracesweep
