// SPDX-License-Identifier: Apache-2.0
// The summary contract, computed from the event table through the backend primitives only:
// unions per device (and per device × kind, communication, computation), their intersection,
// the gap scan over the activity union and segmented statistics of kernel durations per name.
#include <tracesweep/error.hpp>
#include <tracesweep/summary.hpp>

#include <algorithm>
#include <limits>

namespace tracesweep {

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

int kind_slot(event_kind k) noexcept {
  return k == event_kind::kernel ? 0 : k == event_kind::memcpy ? 1 : 2;
}

}  // namespace

summary compute_summary(trace_model const& model, backend& be, summary_options const& options) {
  auto const& table = model.table();
  summary out;
  out.inputs = table.inputs();
  auto const devices = model.devices();
  auto const device_group = model.device_group();
  std::size_t const device_count = devices.size();
  std::size_t const n = table.size();

  // 2. Gather the interval sets and the window of each device.
  interval_columns activity, by_kind, comm, comp;
  std::vector<std::uint32_t> kernel_names;
  std::vector<std::int64_t> kernel_durations;
  std::vector<std::int64_t> window_start(device_count, std::numeric_limits<std::int64_t>::max());
  std::vector<std::int64_t> window_end(device_count, std::numeric_limits<std::int64_t>::min());
  std::vector<std::int64_t> kernel_count(device_count, 0);
  for (std::size_t i = 0; i < n; ++i) {
    auto const k = table.kind[i];
    if (!is_device_activity(k)) continue;
    group_id const g = device_group[i];
    std::int64_t const s = table.start_ns[i], e = table.end_ns[i];
    activity.push(s, e, g);
    by_kind.group.push_back(g * 3 + static_cast<group_id>(kind_slot(k)));
    window_start[g] = std::min(window_start[g], s);
    window_end[g] = std::max(window_end[g], e);
    if (k == event_kind::kernel) {
      ++kernel_count[g];
      (model.is_communication(table.name[i]) ? comm : comp).push(s, e, g);
      kernel_names.push_back(table.name[i]);
      kernel_durations.push_back(e - s);
    }
  }

  // 3. Unions, their lengths and the communication ∩ computation overlap.
  auto const activity_union = be.union_by_group(activity.view());
  auto const busy = busy_per_group(activity_union, device_count);
  std::vector<std::int64_t> kind_busy;
  {
    auto const u = be.union_by_group({activity.start, activity.end, by_kind.group});
    kind_busy = busy_per_group(u, device_count * 3);
  }
  by_kind.group = {};
  activity.start = {};
  activity.end = {};
  activity.group = {};
  auto const comm_union = be.union_by_group(comm.view());
  auto const comp_union = be.union_by_group(comp.view());
  comm = {};
  comp = {};
  auto const comm_busy = busy_per_group(comm_union, device_count);
  auto const comp_busy = busy_per_group(comp_union, device_count);
  auto const overlap = be.intersection_by_group(comm_union, comp_union, device_count);

  out.devices.reserve(device_count);
  for (std::size_t g = 0; g < device_count; ++g) {
    auto const& key = devices[g];
    device_summary d;
    d.input = key.input;
    d.rank = key.rank;
    d.device = key.device;
    d.window_start_ns = window_start[g];
    d.window_end_ns = window_end[g];
    d.window_ns = window_end[g] - window_start[g];
    d.busy_ns = busy[g];
    d.idle_ns = d.window_ns - d.busy_ns;
    d.utilization =
        d.window_ns > 0 ? static_cast<double>(d.busy_ns) / static_cast<double>(d.window_ns) : 0.0;
    d.kernel_ns = kind_busy[g * 3 + 0];
    d.memcpy_ns = kind_busy[g * 3 + 1];
    d.memset_ns = kind_busy[g * 3 + 2];
    d.communication_ns = comm_busy[g];
    d.computation_ns = comp_busy[g];
    d.overlap_ns = overlap[g];
    d.kernel_count = kernel_count[g];
    out.devices.push_back(d);
  }

  // 4. Idle gaps of the activity union inside each device's window.
  auto const gaps = be.gap_scan(activity_union, group_windows{window_start, window_end},
                                options.min_gap_ns, options.top);
  out.gaps.reserve(gaps.size());
  for (auto const& gp : gaps) {
    auto const& key = devices[gp.group];
    out.gaps.push_back(
        gap_summary{key.input, key.rank, key.device, gp.start, gp.end, gp.end - gp.start});
  }

  // 5. Per-kernel statistics over every input, by exact name.
  auto const stats = be.segmented_stats(kernel_names, kernel_durations, {});
  kernel_names = {};
  kernel_durations = {};
  int128 grand_total = 0;
  for (auto const& s : stats) grand_total += s.sum;
  out.kernels.reserve(stats.size());
  for (auto const& s : stats) {
    auto const d = derive_stats(s, {});
    kernel_summary k;
    k.name = std::string(table.strings().at(s.key));
    k.calls = static_cast<std::int64_t>(s.count);
    k.total_ns = static_cast<std::int64_t>(s.sum);
    k.avg_ns = d.mean;
    k.median_ns = d.median;
    k.min_ns = s.min;
    k.max_ns = s.max;
    k.stddev_ns = d.stddev;
    k.share = grand_total > 0 ? static_cast<double>(s.sum) / static_cast<double>(grand_total) : 0.0;
    out.kernels.push_back(std::move(k));
  }
  std::sort(out.kernels.begin(), out.kernels.end(),
            [](kernel_summary const& a, kernel_summary const& b) {
              if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
              if (a.calls != b.calls) return a.calls > b.calls;
              return a.name < b.name;
            });
  return out;
}

}  // namespace tracesweep
