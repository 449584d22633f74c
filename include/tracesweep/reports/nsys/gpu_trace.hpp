// SPDX-License-Identifier: Apache-2.0
// nsys's cuda_gpu_trace report: every kernel, memcpy and memset of each input, one row each, by
// start, with its launch details (event_table::launch_details, read on request from nsys
// exports; absent for other inputs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

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

struct gpu_trace_table {
  std::string source;
  std::vector<gpu_trace_row> rows;  ///< by (start, then table order)
};

/// One table per input (or one over all of them with `merge`).
[[nodiscard]] std::vector<gpu_trace_table> compute_gpu_trace(trace_model const& model, bool merge);

/// As nsys prints them: Start (ns), Duration (ns), CorrId, GrdX, GrdY, GrdZ, BlkX, BlkY, BlkZ,
/// Reg/Trd, StcSMem (B), DymSMem (B), Bytes (B), Throughput (B/s), SrcMemKd, DstMemKd, Device,
/// Ctx, GreenCtx, Strm, Name. Throughput = bytes × (10^9 / duration) with the division done in
/// integers first (nsys's quirk), empty for a zero duration, a real where the product overflows
/// 64 bits (as SQLite, where nsys computes it, turns it into a REAL); a kernel's byte and
/// memory-kind cells and a copy's launch cells are empty. Text: one titled table per input; CSV:
/// one header (a File column with several inputs); JSON: [{report, source, rows}].
[[nodiscard]] output::result_set gpu_trace_results(std::vector<gpu_trace_table> const& tables);

/// The label nsys prints for a memory kind (ENUM_CUDA_MEM_KIND), empty for -1.
[[nodiscard]] std::string_view memory_kind_label(std::int16_t kind) noexcept;

}  // namespace tracesweep
