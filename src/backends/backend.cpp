// SPDX-License-Identifier: Apache-2.0
// The public backend calls: each checks its arguments once, then runs the backend's
// implementation. Also the host composition of device_activity from the other primitives.
#include <tracesweep/backend.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tracesweep {

namespace {

void check_union(interval_union const& u, char const* call) {
  if (u.group.size() != u.size() || u.end.size() != u.size())
    throw std::invalid_argument(std::string(call) + ": union columns differ in size");
}

}  // namespace

void backend::sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                         int end_bit) {
  if (keys.size() != values.size())
    throw std::invalid_argument("sort_pairs: keys and values differ in size");
  do_sort_pairs(keys, values, end_bit);
}

interval_union backend::union_by_group(interval_view in) {
  if (in.end.size() != in.size() || in.group.size() != in.size())
    throw std::invalid_argument("union_by_group: start, end and group differ in size");
  return do_union_by_group(in);
}

std::vector<gap> backend::gap_scan(interval_union const& u, group_windows windows,
                                   std::int64_t min_gap, std::size_t top_per_group) {
  if (windows.end.size() != windows.start.size())
    throw std::invalid_argument("gap_scan: window start and end differ in size");
  check_union(u, "gap_scan");
  for (std::size_t i = 0; i < u.size(); ++i)
    if (u.group[i] >= windows.start.size() || (i > 0 && u.group[i] < u.group[i - 1]))
      throw std::invalid_argument(
          "gap_scan: union not sorted by group, or a group has no window (group " +
          std::to_string(u.group[i]) + ")");
  return do_gap_scan(u, windows, min_gap, top_per_group);
}

std::vector<exact_stats> backend::segmented_stats(std::span<std::uint32_t const> keys,
                                                  std::span<std::int64_t const> values,
                                                  std::span<double const> quantiles) {
  if (values.size() != keys.size())
    throw std::invalid_argument("segmented_stats: keys and values differ in size");
  for (double const q : quantiles)
    if (!(q >= 0.0 && q <= 1.0))
      throw std::invalid_argument("segmented_stats: quantile outside [0, 1]");
  return do_segmented_stats(keys, values, quantiles);
}

std::vector<std::int64_t> backend::intersection_by_group(interval_union const& a,
                                                         interval_union const& b,
                                                         std::size_t group_count) {
  for (auto const* u : {&a, &b}) {
    check_union(*u, "intersection_by_group");
    for (group_id const g : u->group)
      if (g >= group_count)
        throw std::invalid_argument("intersection_by_group: group " + std::to_string(g) +
                                    " >= group_count");
  }
  return do_intersection_by_group(a, b, group_count);
}

activity_result backend::device_activity(activity_request const& r) {
  std::size_t const n = r.start.size();
  if (r.end.size() != n || r.kind.size() != n || r.device_group.size() != n || r.name.size() != n)
    throw std::invalid_argument(
        "device_activity: start, end, kind, device_group and name differ in size");
  for (std::size_t i = 0; i < n; ++i)
    if (is_device_activity(r.kind[i]) && r.device_group[i] >= r.device_count)
      throw std::invalid_argument("device_activity: row " + std::to_string(i) +
                                  " is device activity without a device id below " +
                                  std::to_string(r.device_count));
  return do_device_activity(r);
}

activity_result backend::do_device_activity(activity_request const& r) {
  return compose_device_activity(*this, r);
}

namespace {

/// Columns of one interval set being gathered for a union.
struct interval_columns {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> end;
  std::vector<group_id> group;
  void push(std::int64_t s, std::int64_t e, group_id g) {
    start.push_back(s);
    end.push_back(e);
    group.push_back(g);
  }
  [[nodiscard]] interval_view view() const noexcept { return {start, end, group}; }
};

group_id kind_slot(event_kind k) noexcept {
  return k == event_kind::kernel ? 0 : k == event_kind::memcpy ? 1 : 2;
}

}  // namespace

activity_result compose_device_activity(backend& be, activity_request const& r) {
  std::size_t const devices = r.device_count;
  activity_result out;
  out.devices.resize(devices);
  auto& rows = out.devices;

  // Row selection: activity per device, per device × kind, kernels by class and by name.
  interval_columns activity, comm, comp;
  std::vector<group_id> by_kind;
  std::vector<std::uint32_t> kernel_names;
  std::vector<std::int64_t> kernel_durations;
  for (std::size_t i = 0; i < r.start.size(); ++i) {
    auto const k = r.kind[i];
    if (!is_device_activity(k)) continue;
    group_id const g = r.device_group[i];
    std::int64_t const s = r.start[i], e = r.end[i];
    activity.push(s, e, g);
    by_kind.push_back(g * 3 + kind_slot(k));
    rows[g].window_start = std::min(rows[g].window_start, s);
    rows[g].window_end = std::max(rows[g].window_end, e);
    if (k == event_kind::kernel) {
      ++rows[g].kernel_count;
      std::uint32_t const name = r.name[i];
      bool const is_comm = name < r.communication.size() && r.communication[name] != 0;
      (is_comm ? comm : comp).push(s, e, g);
      kernel_names.push_back(name);
      kernel_durations.push_back(e - s);
    }
  }

  // Unions, their lengths and the communication ∩ computation overlap.
  auto const activity_union = be.union_by_group(activity.view());
  auto const busy = busy_per_group(activity_union, devices);
  {
    auto const u = be.union_by_group({activity.start, activity.end, by_kind});
    auto const kind_busy = busy_per_group(u, devices * 3);
    for (std::size_t g = 0; g < devices; ++g) {
      rows[g].busy = busy[g];
      rows[g].kernel_busy = kind_busy[g * 3 + 0];
      rows[g].memcpy_busy = kind_busy[g * 3 + 1];
      rows[g].memset_busy = kind_busy[g * 3 + 2];
    }
  }
  by_kind = {};
  activity = {};
  {
    auto const comm_union = be.union_by_group(comm.view());
    auto const comp_union = be.union_by_group(comp.view());
    comm = {};
    comp = {};
    auto const comm_busy = busy_per_group(comm_union, devices);
    auto const comp_busy = busy_per_group(comp_union, devices);
    auto const overlap = be.intersection_by_group(comm_union, comp_union, devices);
    for (std::size_t g = 0; g < devices; ++g) {
      rows[g].communication = comm_busy[g];
      rows[g].computation = comp_busy[g];
      rows[g].overlap = overlap[g];
    }
  }

  // Idle gaps of the activity union inside each device's window.
  std::vector<std::int64_t> window_start(devices), window_end(devices);
  for (std::size_t g = 0; g < devices; ++g) {
    window_start[g] = rows[g].window_start;
    window_end[g] = rows[g].window_end;
  }
  out.gaps = be.gap_scan(activity_union, group_windows{window_start, window_end}, r.min_gap,
                         r.top_per_group);

  // Kernel durations by name.
  out.kernels = be.segmented_stats(kernel_names, kernel_durations, {});
  return out;
}

}  // namespace tracesweep
