// SPDX-License-Identifier: Apache-2.0
// cuda_kern_exec_trace / _sum → result tables (nsys-style: per input in text, one CSV, JSON).
#include <tracesweep/reports/nsys/kernel_exec.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

constexpr char const* empty_text =
    "(no rows: no launched kernels in the input, or none the filters kept)";

void add_ns(result_table& t, std::string name, value_type type = value_type::integer) {
  stats::add_number(t, std::move(name), type, "ns");
}

result_table trace_columns(unsigned views) {
  auto t = stats::report_table("cuda_kern_exec_trace", views);
  for (auto const* n : {"API Start (ns)", "API Dur (ns)", "Queue Start (ns)", "Queue Dur (ns)",
                        "Kernel Start (ns)", "Kernel Dur (ns)", "Total Dur (ns)"})
    add_ns(t, n);
  t.add("PID", value_type::integer);
  t.add("TID", value_type::integer);
  t.add("DevId", value_type::integer);
  for (auto const* n : {"API Function", "GridXYZ", "BlockXYZ", "Kernel Name"})
    t.add(n, value_type::string);
  return t;
}

cell optional_ns(std::optional<std::int64_t> v) {
  return v ? cell(*v) : cell();
}

std::vector<cell> trace_cells(kernel_exec_row const& r) {
  return {r.api_start,
          r.api_duration,
          optional_ns(r.queue_start),
          optional_ns(r.queue_duration),
          r.kernel_start,
          r.kernel_duration,
          r.total_duration,
          std::int64_t{r.pid},
          r.tid,
          std::int64_t{r.device},
          r.api_name,
          r.grid,
          r.block,
          r.kernel_name};
}

result_table sum_columns(unsigned views) {
  auto t = stats::report_table("cuda_kern_exec_sum", views);
  for (auto const* n : {"PID", "TID", "DevId", "Count", "QCount"}) t.add(n, value_type::integer);
  for (char const phase : {'T', 'A', 'Q', 'K'}) {
    std::string const p(1, phase);
    add_ns(t, p + "Avg (ns)", value_type::real);
    add_ns(t, p + "Med (ns)", value_type::real);
    add_ns(t, p + "Min (ns)");
    add_ns(t, p + "Max (ns)");
    add_ns(t, p + "StdDev (ns)", value_type::real);
  }
  t.add("API Name", value_type::string);
  t.add("Kernel Name", value_type::string).symbol = true;
  return t;
}

void add_phase(std::vector<cell>& c, std::optional<phase_stats> const& s) {
  if (!s) {
    c.insert(c.end(), 5, cell());
    return;
  }
  c.insert(c.end(), {s->avg, s->median, s->min, s->max, s->stddev});
}

std::vector<cell> sum_cells(kernel_exec_group const& r) {
  std::vector<cell> c{std::int64_t{r.pid}, r.tid, std::int64_t{r.device}, r.count, r.queued};
  add_phase(c, r.total), add_phase(c, r.api), add_phase(c, r.queue), add_phase(c, r.kernel);
  c.emplace_back(r.api_name);
  c.emplace_back(r.kernel_name);
  return c;
}

}  // namespace

output::result_set kernel_exec_trace_results(kernel_exec_traces trace) {
  return stats::report_per_input(std::move(trace.tables), "cuda_kern_exec_trace",
                                 "CUDA Kernel Launch & Exec Time Trace", empty_text, trace_columns,
                                 [events = trace.events](kernel_launch launch) {
                                   return trace_cells(kernel_exec_row_of(*events, launch));
                                 });
}

output::result_set kernel_exec_sum_results(std::vector<kernel_exec_summary> tables) {
  return stats::report_per_input(std::move(tables), "cuda_kern_exec_sum",
                                 "CUDA Kernel Launch & Exec Time Summary", empty_text, sum_columns,
                                 sum_cells);
}

}  // namespace tracesweep
