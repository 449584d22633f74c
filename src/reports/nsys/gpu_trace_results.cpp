// SPDX-License-Identifier: Apache-2.0
// cuda_gpu_trace tables → result tables with nsys's columns.
#include <tracesweep/reports/nsys/gpu_trace.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

result_table gpu_trace_columns(unsigned views) {
  auto t = stats::report_table("cuda_gpu_trace", views);
  auto number = [&](char const* name, char const* unit = "") {
    stats::add_number(t, name, value_type::integer, unit);
  };
  number("Start (ns)", "ns");
  number("Duration (ns)", "ns");
  t.add("CorrId", value_type::integer);
  for (auto const* n : {"GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd"})
    t.add(n, value_type::integer);
  number("StcSMem (B)", "bytes");
  number("DymSMem (B)", "bytes");
  number("Bytes (B)", "bytes");
  number("Throughput (B/s)");
  t.add("SrcMemKd", value_type::string);
  t.add("DstMemKd", value_type::string);
  t.add("Device", value_type::string);
  t.add("Ctx", value_type::integer);
  t.add("GreenCtx", value_type::integer);
  t.add("Strm", value_type::integer);
  t.add("Name", value_type::string).symbol = true;
  return t;
}

/// A detail value, or an empty cell for -1 (absent).
cell known(std::int64_t v) {
  return v < 0 ? cell() : cell(v);
}

cell kind_label(std::int16_t kind) {
  auto const label = memory_kind_label(kind);
  return label.empty() ? cell() : cell(std::string(label));
}

std::vector<cell> cells_of(gpu_trace_row r) {
  std::vector<cell> c;
  c.reserve(21);  // the columns' count: one allocation a row
  c.insert(c.end(), {r.start_ns, r.duration_ns, known(r.correlation)});
  bool const kernel = r.kind == event_kind::kernel;
  device_details const d = r.details.value_or(device_details{});
  for (auto v : d.grid) c.push_back(kernel ? known(v) : cell());
  for (auto v : d.block) c.push_back(kernel ? known(v) : cell());
  c.push_back(kernel ? known(d.registers_per_thread) : cell());
  c.push_back(kernel ? known(d.static_shared_bytes) : cell());
  c.push_back(kernel ? known(d.dynamic_shared_bytes) : cell());
  c.push_back(kernel ? cell() : cell(r.bytes));
  c.push_back(kernel ? cell() : gpu_trace_throughput(r.bytes, r.duration_ns));
  c.push_back(kernel ? cell() : kind_label(d.src_kind));
  c.push_back(kernel ? cell() : kind_label(d.dst_kind));
  c.emplace_back(std::move(r.device_label));
  c.push_back(known(d.context));
  c.push_back(known(d.green_context));
  c.push_back(known(r.stream));
  c.emplace_back(std::move(r.name));
  return c;
}

}  // namespace

/// nsys's `bytes * (1000000000 / duration)` as SQLite evaluates it: the division in integers
/// (truncated toward zero), NULL for a zero duration; the product an integer, or, when it
/// overflows 64 bits, a REAL: both operands converted to doubles and multiplied.
cell gpu_trace_throughput(std::int64_t bytes, std::int64_t duration_ns) {
  if (duration_ns == 0) return cell();
  std::int64_t const per_second = 1'000'000'000 / duration_ns;
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(bytes, per_second, &product)) return cell(product);
  return cell(static_cast<double>(bytes) * static_cast<double>(per_second));
}

output::result_set gpu_trace_results(gpu_trace report) {
  return stats::report_per_input(
      std::move(report.tables), "cuda_gpu_trace", "CUDA GPU Trace",
      "(no rows: no GPU operations in the input, or none the filters kept)", gpu_trace_columns,
      [events = report.events](std::size_t row) {
        return cells_of(gpu_trace_row_of(*events, row));
      });
}

}  // namespace tracesweep
