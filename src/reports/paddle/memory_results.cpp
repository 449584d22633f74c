// SPDX-License-Identifier: Apache-2.0
// The memory tables as result tables: grids for text (bytes with thousands separators), the
// same columns in CSV and JSON, and the timeline as an HTML line chart.
#include <tracesweep/reports/paddle/memory_table.hpp>

#include <fmt/format.h>

#include "reports/result_columns.hpp"

namespace tracesweep {

namespace {

using namespace tables::result_columns;

/// A grid of rank and device in every view (the memory tables are flat in JSON too).
result_table memory_grid(std::string name, std::string title) {
  auto t = ranked(std::move(name), std::move(title), output::all_views);
  t.add("device", integer, {}, "Device");
  return t;
}

void add_bytes(result_table& t, std::string name, std::string label) {
  t.add(std::move(name), integer, "bytes", std::move(label)).thousands = true;
}

/// "rank R GPU D", or "rank R CPU" for device -1: the series of the chart.
std::string device_label(std::int32_t rank, std::int32_t device) {
  return device < 0 ? fmt::format("rank {} CPU", rank)
                    : fmt::format("rank {} GPU {}", rank, device);
}

/// Paddle's Type column: Allocated or Reserved.
std::string pool_name(memory_pool pool) {
  return pool == memory_pool::reserved ? "reserved" : "allocated";
}

result_table devices_table(memory_tables const& m) {
  auto t = memory_grid("memory", "Memory Summary (device -1: host memory)");
  t.add("events", integer, {}, "Events");
  add_bytes(t, "peak_allocated_bytes", "Peak Allocated (bytes)");
  add_bytes(t, "peak_reserved_bytes", "Peak Reserved (bytes)");
  for (auto const& d : m.devices)
    t.add_row(
        {i64(d.rank), i64(d.device), i64(d.events), i64(d.peak_allocated), i64(d.peak_reserved)});
  return t;
}

result_table ops_table(memory_tables const& m) {
  auto t = memory_grid("memory_ops",
                       "Memory by op (each event charged to the innermost operator on its thread)");
  t.add("pool", string, {}, "Type");
  t.add("name", string, {}, "Name");
  t.add("allocations", integer, {}, "Allocation Count");
  t.add("frees", integer, {}, "Free Count");
  add_bytes(t, "allocated_bytes", "Allocation Size (bytes)");
  add_bytes(t, "freed_bytes", "Free Size (bytes)");
  add_bytes(t, "increase_bytes", "Increased Size (bytes)");
  for (auto const& o : m.ops)
    t.add_row({i64(o.rank), i64(o.device), pool_name(o.pool), o.name, i64(o.allocations),
               i64(o.frees), i64(o.allocated_bytes), i64(o.freed_bytes), i64(o.increase())});
  return t;
}

result_table steps_table(memory_tables const& m) {
  auto t = memory_grid("memory_steps", "Peak allocated memory per step");
  t.add("step", integer, {}, "Step");
  t.add("step_name", string, {}, "Name");
  t.add("start_ns", integer, "ns", "Start (ns)");
  t.add("end_ns", integer, "ns", "End (ns)");
  add_bytes(t, "peak_allocated_bytes", "Peak Allocated (bytes)");
  for (auto const& s : m.steps)
    t.add_row({i64(s.rank), i64(s.device), i64(s.step), s.step_name, i64(s.start_ns), i64(s.end_ns),
               i64(s.peak_allocated)});
  return t;
}

result_table timeline_table(memory_tables const& m) {
  auto t = memory_grid("memory_timeline", "Allocated memory over time");
  t.views = output::flat | output::json | output::html;
  t.add("series", string).views = output::html;
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns");
  add_bytes(t, "peak_allocated_bytes", "Peak Allocated (bytes)");
  add_bytes(t, "peak_reserved_bytes", "Peak Reserved (bytes)");
  t.plot = {output::chart_kind::line,
            "start_ns",
            "peak_allocated_bytes",
            "series",
            "time",
            "allocated bytes",
            {},
            true};
  for (auto const& b : m.timeline)
    t.add_row({i64(b.rank), i64(b.device), device_label(b.rank, b.device), i64(b.start_ns),
               i64(b.end_ns), i64(b.peak_allocated), i64(b.peak_reserved)});
  return t;
}

}  // namespace

std::vector<output::result_table> memory_results(memory_tables const& m) {
  return {devices_table(m), ops_table(m), steps_table(m), timeline_table(m)};
}

}  // namespace tracesweep
