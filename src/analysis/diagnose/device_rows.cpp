// SPDX-License-Identifier: Apache-2.0
// Each device's activity in start order, sorted by the backend (key: device id above the start's
// offset from the earliest start), and the unions a linear sweep over that order gives.
#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <numeric>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Orders `rows` (all device activity) by (device, start, row) on the host.
void sort_on_host(trace_model const& model, std::vector<std::size_t>& rows) {
  auto const groups = model.device_group();
  auto const& start = model.table().start_ns;
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    if (groups[a] != groups[b]) return groups[a] < groups[b];
    if (start[a] != start[b]) return start[a] < start[b];
    return a < b;
  });
}

}  // namespace

device_rows order_device_rows(trace_model const& model, backend& be) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::size_t const device_count = model.devices().size();
  device_rows out;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == no_device) continue;
    out.rows.push_back(i);
    lo = std::min(lo, t.start_ns[i]);
    hi = std::max(hi, t.start_ns[i]);
  }
  out.offsets.assign(device_count + 1, 0);
  for (auto const r : out.rows) ++out.offsets[groups[r] + 1];
  std::partial_sum(out.offsets.begin(), out.offsets.end(), out.offsets.begin());
  if (out.rows.empty()) return out;

  int const group_bits = std::bit_width(device_count);
  auto const span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  int const time_bits = std::bit_width(span);
  bool const fits = group_bits + time_bits <= 64 && t.size() <= UINT32_MAX;
  if (!fits) {
    sort_on_host(model, out.rows);
    return out;
  }
  std::vector<std::uint64_t> keys(out.rows.size());
  std::vector<std::uint32_t> values(out.rows.size());
  for (std::size_t k = 0; k < out.rows.size(); ++k) {
    auto const r = out.rows[k];
    auto const offset = static_cast<std::uint64_t>(t.start_ns[r]) - static_cast<std::uint64_t>(lo);
    keys[k] = (time_bits == 64 ? 0 : std::uint64_t{groups[r]} << time_bits) | offset;
    values[k] = static_cast<std::uint32_t>(r);
  }
  // Rows are gathered in row order and the sort is stable: equal starts stay by row.
  be.sort_pairs(keys, values, group_bits + time_bits);
  for (std::size_t k = 0; k < values.size(); ++k) out.rows[k] = values[k];
  return out;
}

std::int64_t intervals::total() const {
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < size(); ++k) sum += end[k] - start[k];
  return sum;
}

std::int64_t intervals::covered(std::int64_t lo, std::int64_t hi) const {
  if (hi <= lo) return 0;
  // The first interval ending after lo.
  auto k = static_cast<std::size_t>(std::upper_bound(end.begin(), end.end(), lo) - end.begin());
  std::int64_t total = 0;
  for (; k < size() && start[k] < hi; ++k) total += std::min(end[k], hi) - std::max(start[k], lo);
  return total;
}

namespace {

void extend(intervals& u, std::int64_t s, std::int64_t e) {
  if (e <= s) return;
  if (!u.start.empty() && s <= u.end.back()) {
    u.end.back() = std::max(u.end.back(), e);
    return;
  }
  u.start.push_back(s);
  u.end.push_back(e);
}

}  // namespace

device_unions unite(trace_model const& model, std::span<std::size_t const> rows) {
  auto const& t = model.table();
  device_unions u;
  for (auto const r : rows) {
    extend(u.busy, t.start_ns[r], t.end_ns[r]);
    if (t.kind[r] != event_kind::kernel) continue;
    extend(model.is_communication(t.name[r]) ? u.communication : u.computation, t.start_ns[r],
           t.end_ns[r]);
  }
  return u;
}

intervals intersect(intervals const& a, intervals const& b) {
  intervals out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    std::int64_t const s = std::max(a.start[i], b.start[j]);
    std::int64_t const e = std::min(a.end[i], b.end[j]);
    if (s < e) {
      out.start.push_back(s);
      out.end.push_back(e);
    }
    if (a.end[i] < b.end[j])
      ++i;
    else
      ++j;
  }
  return out;
}

activity_result device_activity_of(trace_model const& model, backend& be, device_rows const& order,
                                   std::span<device_unions const> unions, std::int64_t min_gap) {
  auto const& t = model.table();
  std::size_t const devices = unions.size();
  activity_result out;
  out.devices.resize(devices);
  interval_union busy;
  std::vector<std::int64_t> window_start(devices), window_end(devices);
  for (std::size_t g = 0; g < devices; ++g) {
    auto& d = out.devices[g];
    for (auto const r : order.of(g)) {
      d.window_start = std::min(d.window_start, t.start_ns[r]);
      d.window_end = std::max(d.window_end, t.end_ns[r]);
      d.kernel_count += t.kind[r] == event_kind::kernel;
    }
    auto const& u = unions[g];
    d.busy = u.busy.total();
    d.communication = u.communication.total();
    d.computation = u.computation.total();
    d.overlap = intersect(u.communication, u.computation).total();
    window_start[g] = d.window_start;
    window_end[g] = d.window_end;
    busy.group.insert(busy.group.end(), u.busy.size(), static_cast<group_id>(g));
    busy.start.insert(busy.start.end(), u.busy.start.begin(), u.busy.start.end());
    busy.end.insert(busy.end.end(), u.busy.end.begin(), u.busy.end.end());
  }
  out.gaps = be.gap_scan(busy, group_windows{window_start, window_end}, min_gap, 0);
  std::vector<std::uint32_t> names;
  std::vector<std::int64_t> durations;
  for (auto const r : order.rows)
    if (t.kind[r] == event_kind::kernel) {
      names.push_back(t.name[r]);
      durations.push_back(t.end_ns[r] - t.start_ns[r]);
    }
  out.kernels = be.segmented_stats(names, durations, {});
  return out;
}

std::vector<std::optional<host_index::key>> main_threads(trace_model const& model,
                                                         device_rows const& order) {
  std::vector<std::optional<host_index::key>> out(model.devices().size());
  for (std::size_t g = 0; g < out.size(); ++g) {
    std::map<host_index::key, std::size_t> counts;
    for (auto const r : order.of(g))
      if (auto k = launching_thread(model, static_cast<std::int64_t>(r))) ++counts[*k];
    std::size_t best = 0;
    for (auto const& [k, n] : counts)
      if (n > best) best = n, out[g] = k;
  }
  return out;
}

}  // namespace tracesweep::diagnose_detail
