// SPDX-License-Identifier: Apache-2.0
// The summary's result tables: the columns, their units and how text shows them.
#include <tracesweep/analysis/summary_results.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "reports/result_columns.hpp"

namespace tracesweep {

namespace {

using output::cell, output::column, output::nest, output::result_table, output::value_type;
using enum output::value_type;

using tables::result_columns::i64;

result_table table(std::string name, std::string title) {
  result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  return t;
}

/// A column text (and so the HTML page) leaves out.
void hide_in_text(column& c) {
  c.views &= ~static_cast<unsigned>(output::text | output::html);
}

/// Columns shared by devices and gaps: which input (text shows it with several inputs), rank,
/// device.
void add_location(result_table& t, summary const& s) {
  auto& input = t.add("input", integer);
  if (s.inputs.size() <= 1) hide_in_text(input);
  auto& path = t.add("path", string);
  path.elide = true;
  hide_in_text(path);
  t.add("rank", integer);
  t.add("device", integer);
}

std::string const& input_path(summary const& s, std::int32_t input) {
  static std::string const none;
  return input >= 0 && static_cast<std::size_t>(input) < s.inputs.size() ? s.inputs[input].path
                                                                         : none;
}

std::vector<cell> location(summary const& s, std::int32_t input, std::int32_t rank,
                           std::int32_t device) {
  return {i64(input), input_path(s, input), i64(rank), i64(device)};
}

void add_ns(result_table& t, std::string name, std::string label) {
  t.add(std::move(name), integer, "ns", std::move(label));
}

/// A double shown in text with `decimals` (as a percentage when `percent`).
void add_real(result_table& t, std::string name, std::string label, int decimals,
              bool percent = false) {
  auto& c = t.add(std::move(name), real, percent ? "fraction" : "ns", std::move(label));
  c.decimals = decimals;
  if (percent) c.text_unit = "%";
}

result_table devices(summary const& s) {
  auto t = table("devices", "Devices");
  add_location(t, s);
  add_ns(t, "window_start_ns", "start (ns)");
  hide_in_text(t.columns.back());
  add_ns(t, "window_end_ns", "end (ns)");
  hide_in_text(t.columns.back());
  add_ns(t, "window_ns", "window (ns)");
  add_ns(t, "busy_ns", "busy (ns)");
  add_ns(t, "idle_ns", "idle (ns)");
  add_real(t, "utilization", "util (%)", 2, true);
  add_ns(t, "kernel_ns", "kernel (ns)");
  add_ns(t, "memcpy_ns", "memcpy (ns)");
  add_ns(t, "memset_ns", "memset (ns)");
  add_ns(t, "communication_ns", "comm (ns)");
  add_ns(t, "computation_ns", "compute (ns)");
  add_ns(t, "overlap_ns", "overlap (ns)");
  t.add("kernel_count", integer, "", "kernels");
  for (auto const* name : {"exposed_comm_wait_ns", "exposed_comm_transfer_ns"}) {
    add_ns(t, name, name);
    hide_in_text(t.columns.back());
  }
  for (auto const& d : s.devices) {
    auto cells = location(s, d.input, d.rank, d.device);
    for (auto v : {d.window_start_ns, d.window_end_ns, d.window_ns, d.busy_ns, d.idle_ns})
      cells.emplace_back(v);
    cells.emplace_back(d.utilization);
    for (auto v : {d.kernel_ns, d.memcpy_ns, d.memset_ns, d.communication_ns, d.computation_ns,
                   d.overlap_ns, d.kernel_count})
      cells.emplace_back(v);
    for (auto const& v : {d.exposed_comm_wait_ns, d.exposed_comm_transfer_ns})
      cells.push_back(v ? cell(*v) : cell());
    t.add_row(std::move(cells));
  }
  return t;
}

result_table kernels(summary const& s) {
  auto t = table("kernels", "Kernels");
  auto& name = t.add("name", string);
  name.text_last = true;
  name.symbol = true;
  t.add("calls", integer);
  add_ns(t, "total_ns", "total (ns)");
  add_real(t, "avg_ns", "avg (ns)", 1);
  add_real(t, "median_ns", "median (ns)", 1);
  add_ns(t, "min_ns", "min (ns)");
  add_ns(t, "max_ns", "max (ns)");
  add_real(t, "stddev_ns", "stddev (ns)", 1);
  add_real(t, "share", "share (%)", 2, true);
  for (auto const& k : s.kernels)
    t.add_row({k.name, i64(k.calls), i64(k.total_ns), k.avg_ns, k.median_ns, i64(k.min_ns),
               i64(k.max_ns), k.stddev_ns, k.share});
  return t;
}

result_table gaps(summary const& s) {
  auto t = table("gaps", "Idle gaps");
  t.spans = {"start_ns", "end_ns",         "", "rank", "device", "GPU {} idle gaps", "",
             "idle gap", "tracesweep.gap", "", ""};
  add_location(t, s);
  add_ns(t, "start_ns", "start (ns)");
  t.columns.back().timestamp = true;
  add_ns(t, "end_ns", "end (ns)");
  t.columns.back().timestamp = true;
  add_ns(t, "duration_ns", "duration (ns)");
  for (auto const& g : s.gaps) {
    auto cells = location(s, g.input, g.rank, g.device);
    for (auto v : {g.start_ns, g.end_ns, g.duration_ns}) cells.emplace_back(v);
    t.add_row(std::move(cells));
  }
  return t;
}

/// A list (`value` only) or a map (`key` → `value`) held in one cell.
result_table entries(output::json_shape shape, value_type key, value_type value) {
  result_table t;
  t.shape = shape;
  if (shape == output::json_shape::map) t.add("key", key);
  t.add("value", value);
  return t;
}

/// A GPU as text shows it: "NVIDIA A100-SXM4-40GB (39.4 GiB, 108 SMs, sm_80)", the parts the
/// input records.
std::string gpu_label(std::string const& name, input_info::gpu_properties const& p) {
  std::vector<std::string> parts;
  if (p.total_memory_bytes >= 0)
    parts.push_back(fmt::format("{:.1f} GiB", static_cast<double>(p.total_memory_bytes) /
                                                  static_cast<double>(std::int64_t{1} << 30)));
  if (p.sm_count >= 0) parts.push_back(fmt::format("{} SMs", p.sm_count));
  if (p.compute_major >= 0 && p.compute_minor >= 0)
    parts.push_back(fmt::format("sm_{}{}", p.compute_major, p.compute_minor));
  if (parts.empty()) return name;
  return fmt::format("{} ({})", name, fmt::join(parts, ", "));
}

/// JSON's "gpus": one row per GPU the input describes (name and properties, null when unknown).
result_table gpus_of(input_info const& in) {
  result_table t;
  t.add("device", integer);
  t.add("name", string);
  t.add("total_memory_bytes", integer);
  t.add("sm_count", integer);
  t.add("compute_capability", string);
  std::map<std::int32_t, bool> ids;
  for (auto const& [id, name] : in.device_names) ids[id] = true;
  for (auto const& [id, p] : in.device_properties) ids[id] = true;
  for (auto const& [id, unused] : ids) {
    auto const name = in.device_names.find(id);
    auto const found = in.device_properties.find(id);
    auto const p =
        found == in.device_properties.end() ? input_info::gpu_properties{} : found->second;
    auto known = [](std::int64_t v) { return v < 0 ? cell() : cell(v); };
    cell capability;
    if (p.compute_major >= 0 && p.compute_minor >= 0)
      capability = fmt::format("{}.{}", p.compute_major, p.compute_minor);
    t.add_row({i64(id), name == in.device_names.end() ? cell() : cell(name->second),
               known(p.total_memory_bytes), known(p.sm_count), capability});
  }
  return t;
}

result_table inputs(summary const& s) {
  auto t = table("inputs", "Inputs");
  t.add("path", string).elide = true;
  t.add("format", string);
  t.add("ranks", nested);
  t.add("process_ids", nested);  // rank → process id where they differ (nsys)
  // The summary reads only GPU operations where the format lets it (nsys): it counts those, so
  // the count is the same whichever other kinds a filter made the reader take too.
  t.add("gpu_operations", integer);
  t.add("skipped", nested);
  add_ns(t, "session_start_utc_ns", "session start (ns)");
  hide_in_text(t.columns.back());
  t.add("device_names", nested).views = output::json | output::flat;
  t.add("gpus", nested).views = output::json;
  t.add("devices", nested).views = output::text | output::html;
  for (auto const& in : s.inputs) {
    auto ranks = entries(output::json_shape::list, integer, integer);
    ranks.text_separator = ",";
    for (auto r : in.ranks) ranks.add_row({i64(r)});
    auto processes = entries(output::json_shape::map, integer, integer);
    processes.text_pair = ": ";
    for (auto const& [r, pid] : in.process_ids)  // those of the ranks listed
      if (std::binary_search(in.ranks.begin(), in.ranks.end(), r))
        processes.add_row({i64(r), i64(pid)});
    auto skipped = entries(output::json_shape::map, string, integer);
    skipped.text_pair = ": ";
    for (auto const& [reason, count] : in.skipped) skipped.add_row({reason, i64(count)});
    auto names = entries(output::json_shape::map, integer, string);
    auto labels = entries(output::json_shape::map, integer, string);
    labels.text_fold_ranges = true;
    for (auto const& [id, name] : in.device_names) {
      names.add_row({i64(id), name});
      auto const p = in.device_properties.find(id);
      labels.add_row(
          {i64(id), p == in.device_properties.end() ? name : gpu_label(name, p->second)});
    }
    cell start;
    if (in.session_start_utc_ns) start = i64(*in.session_start_utc_ns);
    t.add_row({in.path, in.format, nest(std::move(ranks)), nest(std::move(processes)),
               i64(in.device_events()), nest(std::move(skipped)), start, nest(std::move(names)),
               nest(gpus_of(in)), nest(std::move(labels))});
  }
  return t;
}

}  // namespace

output::result_set summary_results(summary const& s) {
  output::result_set set;
  set.tables = {devices(s), kernels(s), gaps(s), inputs(s)};
  set.time_origin_ns = s.trace_start_ns;
  set.time_origin_name = "the first GPU operation";
  return set;
}

}  // namespace tracesweep
