// SPDX-License-Identifier: Apache-2.0
// The diagnosis's memory as result tables: the staircases (every view), the per-step peaks (JSON
// and CSV) and the allocated total over time (JSON, and a line chart on the HTML page).
#include <tracesweep/analysis/diagnose.hpp>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose_parts.hpp"
#include "reports/result_columns.hpp"

namespace tracesweep {

namespace {

using output::cell, output::result_table;
using enum output::value_type;
using tables::result_columns::i64;

result_table memory_table(std::string name, std::string title, unsigned views) {
  result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  t.views = views;
  t.add("rank", integer);
  t.add("device", integer);
  return t;
}

void add_bytes(result_table& t, std::string name) {
  t.add(std::move(name), integer, "bytes").thousands = true;
}

}  // namespace

result_table diagnose_memory(diagnosis const& d) {
  auto t = memory_table("memory", "Memory growing step after step",
                        output::json | output::flat | output::text | output::html);
  t.add("kind", string);
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns");
  add_bytes(t, "peak_bytes");
  add_bytes(t, "growth_bytes_per_step");
  t.add("first_step", integer);
  t.add("steps", integer);
  for (auto const& m : d.memory)
    t.add_row({i64(m.rank), i64(m.device), m.kind, i64(m.start_ns), i64(m.end_ns),
               i64(m.peak_bytes), i64(m.growth_bytes_per_step), i64(m.first_step), i64(m.steps)});
  return t;
}

result_table diagnose_memory_steps(diagnosis const& d) {
  auto t =
      memory_table("memory_steps", "Peak allocated memory per step", output::json | output::flat);
  t.add("step", integer);
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns");
  add_bytes(t, "peak_bytes");
  for (auto const& s : d.memory_steps)
    t.add_row({i64(s.rank), i64(s.device), i64(s.step), i64(s.start_ns), i64(s.end_ns),
               i64(s.peak_bytes)});
  return t;
}

result_table diagnose_memory_timeline(diagnosis const& d) {
  auto t =
      memory_table("memory_timeline", "Allocated memory over time", output::json | output::html);
  t.add("series", string).views = output::html;
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns").views = output::json;
  add_bytes(t, "peak_bytes");
  t.plot = {output::chart_kind::line, "start_ns", "peak_bytes", "series", "time",
            "allocated bytes",        {},         true};
  for (auto const& b : d.memory_timeline) {
    auto const series = b.device < 0 ? fmt::format("rank {} CPU", b.rank)
                                     : fmt::format("rank {} GPU {}", b.rank, b.device);
    t.add_row(
        {i64(b.rank), i64(b.device), series, i64(b.start_ns), i64(b.end_ns), i64(b.peak_bytes)});
  }
  return t;
}

}  // namespace tracesweep
