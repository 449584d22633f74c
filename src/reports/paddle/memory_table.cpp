// SPDX-License-Identifier: Apache-2.0
// Memory tables from event_table::memory: per-device peaks, per-op allocations and frees (each
// event charged to the innermost operator around it on its thread, by one stack sweep per
// thread), the allocated total in time bins, and its peak per step.
#include <tracesweep/reports/paddle/memory_table.hpp>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/reports/paddle/operator_table.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace tracesweep {

std::vector<memory_series> memory_series_of(event_table const& table) {
  auto const& m = table.memory;
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::size_t>> by_device;
  for (std::size_t i = 0; i < m.size(); ++i) by_device[{m.rank[i], m.device[i]}].push_back(i);
  std::vector<memory_series> out;
  for (auto& [key, events] : by_device) {
    std::stable_sort(events.begin(), events.end(),
                     [&](std::size_t a, std::size_t b) { return m.time_ns[a] < m.time_ns[b]; });
    out.push_back({key.first, key.second, std::move(events)});
  }
  return out;
}

namespace {

memory_device_row device_peaks(event_table const& table, memory_series const& s) {
  auto const& m = table.memory;
  memory_device_row row{s.rank, s.device, static_cast<std::int64_t>(s.events.size()), 0, 0};
  for (auto i : s.events) {
    row.peak_allocated = std::max(row.peak_allocated, m.allocated[i]);
    row.peak_reserved = std::max(row.peak_reserved, m.reserved[i]);
  }
  return row;
}

/// Host ops of one (input, thread), by (start, end descending, row).
using op_list = std::vector<std::size_t>;

std::map<std::pair<std::int32_t, std::int64_t>, op_list> host_ops_by_thread(
    trace_model const& model) {
  auto const& t = model.table();
  std::map<std::pair<std::int32_t, std::int64_t>, op_list> out;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (is_operator_row(model, r)) out[{t.input_of(r), t.stream[r]}].push_back(r);
  for (auto& [key, rows] : out)
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return std::tuple(t.start_ns[a], -t.end_ns[a], a) <
             std::tuple(t.start_ns[b], -t.end_ns[b], b);
    });
  return out;
}

/// The innermost op around each memory event of one thread (-1: none). `events` by time.
void charge_thread(event_table const& t, op_list const& ops, std::span<std::size_t const> events,
                   std::vector<std::int64_t>& op_of) {
  std::vector<std::size_t> open;  // a stack of ops, innermost on top
  std::size_t next = 0;
  for (auto e : events) {
    auto const at = t.memory.time_ns[e];
    for (; next < ops.size() && t.start_ns[ops[next]] <= at; ++next) {
      auto const op = ops[next];
      while (!open.empty() && t.end_ns[open.back()] < t.start_ns[op]) open.pop_back();
      open.push_back(op);
    }
    while (!open.empty() && t.end_ns[open.back()] < at) open.pop_back();
    op_of[e] = open.empty() ? -1 : static_cast<std::int64_t>(open.back());
  }
}

/// The op charged with each memory event (-1: none), by memory event index.
std::vector<std::int64_t> charge_ops(trace_model const& model) {
  auto const& t = model.table();
  auto const& m = t.memory;
  std::vector<std::int64_t> op_of(m.size(), -1);
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> events;
  for (std::size_t i = 0; i < m.size(); ++i) events[{m.input[i], m.thread[i]}].push_back(i);
  auto const ops = host_ops_by_thread(model);
  for (auto& [key, list] : events) {
    auto const found = ops.find(key);
    if (found == ops.end()) continue;
    std::stable_sort(list.begin(), list.end(),
                     [&](std::size_t a, std::size_t b) { return m.time_ns[a] < m.time_ns[b]; });
    charge_thread(t, found->second, list, op_of);
  }
  return op_of;
}

std::vector<memory_op_row> op_rows(trace_model const& model) {
  auto const& t = model.table();
  auto const& m = t.memory;
  auto const op_of = charge_ops(model);
  std::map<std::tuple<std::int32_t, std::int32_t, memory_pool, std::string>, memory_op_row> rows;
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::string name(op_of[i] < 0 ? memory_outside_ops
                                  : t.strings().at(t.name[static_cast<std::size_t>(op_of[i])]));
    auto& row = rows[{m.rank[i], m.device[i], m.pool[i], name}];
    row.rank = m.rank[i], row.device = m.device[i], row.pool = m.pool[i], row.name = name;
    auto const b = m.bytes[i];
    if (b > 0) {
      ++row.allocations;
      row.allocated_bytes = checked_add(row.allocated_bytes, b, "the bytes an op allocated");
    } else if (b < 0) {
      ++row.frees;
      row.freed_bytes = checked_add(row.freed_bytes, -b, "the bytes an op freed");
    }
  }
  std::vector<memory_op_row> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
    return std::tuple(a.rank, a.device, a.pool, -a.increase(), a.name) <
           std::tuple(b.rank, b.device, b.pool, -b.increase(), b.name);
  });
  return out;
}

/// The peak of `values` over events [first, last) of `s`, starting from `carried`.
template <class Values>
std::int64_t peak_over(Values const& values, memory_series const& s, std::size_t first,
                       std::size_t last, std::int64_t carried) {
  for (auto k = first; k < last; ++k) carried = std::max(carried, values[s.events[k]]);
  return carried;
}

/// Index of the first event of `s` at or after `at`.
std::size_t first_at(event_table const& t, memory_series const& s, std::int64_t at) {
  return static_cast<std::size_t>(
      std::lower_bound(s.events.begin(), s.events.end(), at,
                       [&](std::size_t e, std::int64_t v) { return t.memory.time_ns[e] < v; }) -
      s.events.begin());
}

void timeline_of(event_table const& t, memory_series const& s, std::size_t bins,
                 std::vector<memory_timeline_bin>& out) {
  auto const& m = t.memory;
  if (s.events.empty() || bins == 0) return;
  auto const first = m.time_ns[s.events.front()];
  auto const last = m.time_ns[s.events.back()];
  auto const width = (last - first) / static_cast<std::int64_t>(bins) + 1;
  for (std::int64_t lo = first; lo <= last; lo += width) {
    auto const a = first_at(t, s, lo), b = first_at(t, s, lo + width);
    std::int64_t carried_alloc = 0, carried_reserved = 0;
    if (a > 0)
      carried_alloc = m.allocated[s.events[a - 1]], carried_reserved = m.reserved[s.events[a - 1]];
    out.push_back({s.rank, s.device, lo, lo + width, peak_over(m.allocated, s, a, b, carried_alloc),
                   peak_over(m.reserved, s, a, b, carried_reserved)});
  }
}

}  // namespace

std::vector<memory_timeline_bin> memory_timeline(event_table const& table,
                                                 std::span<memory_series const> series,
                                                 std::size_t bins) {
  std::vector<memory_timeline_bin> out;
  for (auto const& s : series) timeline_of(table, s, bins, out);
  return out;
}

std::vector<memory_step_row> memory_step_peaks(
    trace_model const& model, std::span<memory_series const> series,
    std::span<std::vector<memory_window> const> windows) {
  auto const& t = model.table();
  std::vector<memory_step_row> out;
  for (auto const& s : series) {
    auto const r = model.rank_index(s.rank);
    if (r >= windows.size()) continue;
    for (std::size_t k = 0; k < windows[r].size(); ++k) {
      auto const& w = windows[r][k];
      auto const a = first_at(t, s, w.start_ns), b = first_at(t, s, w.end_ns);
      if (a == 0 && b == 0) continue;  // before the device's first event
      std::int64_t const carried = a > 0 ? t.memory.allocated[s.events[a - 1]] : 0;
      out.push_back({s.rank, s.device, static_cast<std::int32_t>(k), w.name, w.start_ns, w.end_ns,
                     peak_over(t.memory.allocated, s, a, b, carried)});
    }
  }
  return out;
}

memory_tables compute_memory_tables(trace_model const& model, std::size_t timeline_bins) {
  auto const& t = model.table();
  memory_tables out;
  auto const series = memory_series_of(t);
  for (auto const& s : series) out.devices.push_back(device_peaks(t, s));
  out.timeline = memory_timeline(t, series, timeline_bins);
  out.ops = op_rows(model);
  std::vector<std::vector<memory_window>> windows(model.ranks().size());
  for (std::size_t r = 0; r < windows.size(); ++r)
    for (auto row : model.steps(r))
      windows[r].push_back(
          {std::string(t.strings().at(t.name[row])), t.start_ns[row], t.end_ns[row]});
  out.steps = memory_step_peaks(model, series, windows);
  return out;
}

}  // namespace tracesweep
