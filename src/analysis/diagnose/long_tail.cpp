// SPDX-License-Identifier: Apache-2.0
// Long-tail kernels (docs/diagnose.md): computation kernels grouped by name and launch
// configuration (grid, block) where the trace records it, by name alone otherwise; instances
// longer than long_tail_factor × the median of their group, for groups with at least
// long_tail_min_count instances; each with the op that launched it and what its launching thread
// was doing meanwhile. Communication kernels are left out: their duration includes the wait for
// the other ranks (the collective findings report it).
#include <algorithm>
#include <map>
#include <optional>
#include <tracesweep/exact_stats.hpp>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// A group: a name and its launch configuration (launch_shapes.distinct's index + 1; 0 where the
/// row has none), as one number.
using group_key = std::uint64_t;

constexpr group_key group_key_of(string_id name, std::uint32_t shape) {
  return (std::uint64_t{name} << 32) | shape;
}

std::string launch_text(event_table const& t, group_key k) {
  auto const shape = static_cast<std::uint32_t>(k & 0xFFFFFFFFu);
  if (shape == 0) return {};
  auto const& [grid, block] = t.launch_shapes.distinct[shape - 1];
  return fmt::format("grid {}x{}x{}, block {}x{}x{}", grid[0], grid[1], grid[2], block[0], block[1],
                     block[2]);
}

/// The exact median of `d` (the mean of the two middle values for an even count), as
/// derive_stats computes it.
double median_of(std::vector<std::int64_t>& d) {
  auto const mid = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
  std::nth_element(d.begin(), mid, d.end());
  auto const hi = static_cast<long double>(*mid);
  if (d.size() % 2 == 1) return static_cast<double>(hi);
  auto const lo = static_cast<long double>(*std::max_element(d.begin(), mid));
  return static_cast<double>((lo + hi) / 2.0L);
}

struct grouping {
  std::vector<std::uint32_t> of;  ///< per row: its group + 1 (0: not a candidate)
  std::vector<group_key> keys;
  std::vector<double> median;  ///< per group: 0 when it has too few instances
};

/// Each computation kernel's group, and each group's median duration.
grouping group_kernels(trace_model const& model, std::size_t min_count) {
  auto const& t = model.table();
  auto const devices = model.device_group();
  auto const& shapes = t.launch_shapes;
  grouping g;
  g.of.assign(t.size(), 0);
  std::unordered_map<group_key, std::uint32_t> index;
  std::size_t next_shape = 0;  // rows ascend in both: one walk instead of a search per row
  std::optional<std::pair<group_key, std::uint32_t>> last;  // kernels repeat in runs
  auto const communication = model.communication_names();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (devices[i] == no_device || t.kind[i] != event_kind::kernel) continue;
    if (names_communication(communication, t.name[i])) continue;
    std::uint32_t shape = 0;
    while (next_shape < shapes.size() && shapes.row[next_shape] < i) ++next_shape;
    if (next_shape < shapes.size() && shapes.row[next_shape] == i) {
      auto const id = shapes.values[next_shape];
      auto const& s = shapes.distinct[id];
      if (s.grid[0] >= 0 && s.block[0] >= 0) shape = id + 1;
    }
    auto const key = group_key_of(t.name[i], shape);
    if (!last || last->first != key) {
      auto const [at, added] = index.try_emplace(key, static_cast<std::uint32_t>(g.keys.size()));
      if (added) g.keys.push_back(key);
      last.emplace(key, at->second);
    }
    g.of[i] = last->second + 1;
  }
  // Each group's durations, sized once (growing millions of them by doubling copied each and
  // touched twice the memory).
  std::vector<std::size_t> count(g.keys.size(), 0);
  for (auto const k : g.of)
    if (k != 0) ++count[k - 1];
  std::vector<std::vector<std::int64_t>> durations(g.keys.size());
  for (std::size_t k = 0; k < g.keys.size(); ++k) durations[k].reserve(count[k]);
  for (std::size_t i = 0; i < t.size(); ++i)
    if (g.of[i] != 0) durations[g.of[i] - 1].push_back(t.end_ns[i] - t.start_ns[i]);
  g.median.assign(g.keys.size(), 0.0);
  for (std::size_t k = 0; k < g.keys.size(); ++k)
    if (durations[k].size() >= min_count) g.median[k] = median_of(durations[k]);
  return g;
}

}  // namespace

void find_long_tail(trace_model const& model, host_classifier const& classifier, diagnosis& out) {
  auto const& t = model.table();
  auto const& o = out.options;
  auto const g = group_kernels(model, o.long_tail_min_count);
  struct instance {
    std::size_t row;
    double ratio;
  };
  std::vector<instance> found;
  auto const groups = model.device_group();
  auto const median = [&](std::size_t row) { return g.median[g.of[row] - 1]; };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (g.of[i] == 0) continue;
    double const m = median(i);
    auto const d = static_cast<double>(t.end_ns[i] - t.start_ns[i]);
    if (m > 0 && d > o.long_tail_factor * m) found.push_back({i, d / m});
  }
  std::sort(found.begin(), found.end(), [&](instance const& a, instance const& b) {
    if (a.ratio != b.ratio) return a.ratio > b.ratio;
    return a.row < b.row;
  });
  out.long_tail_total = static_cast<std::int64_t>(found.size());
  std::map<std::uint32_t, long_tail_name> names;  // by group
  for (auto const& f : found) {
    auto& n = names[g.of[f.row] - 1];
    ++n.instances;
    n.median_ns = median(f.row);
    n.excess_ns = checked_add(
        n.excess_ns, t.end_ns[f.row] - t.start_ns[f.row] - static_cast<std::int64_t>(n.median_ns),
        "the long-tail excess of a kernel");
    n.worst_ratio = std::max(n.worst_ratio, f.ratio);
  }
  for (auto& [k, n] : names) {
    n.name = std::string(t.strings().at(static_cast<string_id>(g.keys[k] >> 32)));
    n.launch = launch_text(t, g.keys[k]);
    out.long_tail_names.push_back(std::move(n));
  }
  std::stable_sort(out.long_tail_names.begin(), out.long_tail_names.end(),
                   [](auto const& a, auto const& b) { return a.excess_ns > b.excess_ns; });
  if (o.top != 0 && found.size() > o.top) found.resize(o.top);

  // The host rows around each instance and around its launch call.
  std::vector<host_index::query> windows;
  for (auto const& f : found) {
    auto const k = launching_thread(model, static_cast<std::int64_t>(f.row));
    if (!k) continue;
    auto const call = static_cast<std::size_t>(model.launcher(f.row));
    windows.push_back({*k, t.start_ns[f.row], t.end_ns[f.row]});
    windows.push_back({*k, t.start_ns[call], t.end_ns[call] + 1});
  }
  host_index const index(model, classifier, std::move(windows));
  for (auto const& f : found) {
    long_tail_finding l;
    l.where = key_of(model, groups[f.row]);
    l.name = std::string(t.strings().at(t.name[f.row]));
    l.start_ns = t.start_ns[f.row];
    l.duration_ns = t.end_ns[f.row] - t.start_ns[f.row];
    l.median_ns = median(f.row);
    l.launch = launch_text(t, g.keys[g.of[f.row] - 1]);
    l.launched_by = launching_op_name(model, index, f.row);
    l.host = launching_thread_rows(model, index, f.row, l.start_ns, l.start_ns + l.duration_ns,
                                   o.host_events);
    out.long_tail.push_back(std::move(l));
  }
}

}  // namespace tracesweep::diagnose_detail
