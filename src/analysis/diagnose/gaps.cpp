// SPDX-License-Identifier: Apache-2.0
// Idle gaps with their cause: for each hole of a device's activity union (from the backend's gap
// scan), the device rows just before and after it, the threads that launched them, the host
// activity of those threads during the hole and the cause covering most of it.
#include <algorithm>
#include <map>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// For each device: its rows in start order with the running argmax of their ends, so the row
/// ending a gap (the last end at or before the gap's start) is one binary search away.
struct neighbours {
  device_rows const& order;
  event_table const& t;
  std::vector<std::size_t> best_end;  ///< alongside order.rows: argmax end over the prefix

  neighbours(device_rows const& o, event_table const& table) : order(o), t(table) {
    best_end.resize(o.rows.size());
    for (std::size_t g = 0; g + 1 < o.offsets.size(); ++g) {
      for (std::size_t k = o.offsets[g]; k < o.offsets[g + 1]; ++k) {
        bool const first = k == o.offsets[g];
        best_end[k] =
            first || t.end_ns[o.rows[k]] > t.end_ns[best_end[k - 1]] ? o.rows[k] : best_end[k - 1];
      }
    }
  }
  /// The row whose end opens a gap at `at` on device g (-1 when none).
  [[nodiscard]] std::int64_t before(std::size_t g, std::int64_t at) const {
    auto const rows = order.of(g);
    auto const k = static_cast<std::size_t>(
        std::lower_bound(rows.begin(), rows.end(), at,
                         [&](std::size_t r, std::int64_t v) { return t.start_ns[r] < v; }) -
        rows.begin());
    if (k == 0) return -1;
    return static_cast<std::int64_t>(best_end[order.offsets[g] + k - 1]);
  }
  /// The first row of positive length starting at or after `at` on device g (-1 when none).
  [[nodiscard]] std::int64_t after(std::size_t g, std::int64_t at) const {
    auto const rows = order.of(g);
    auto k = static_cast<std::size_t>(
        std::lower_bound(rows.begin(), rows.end(), at,
                         [&](std::size_t r, std::int64_t v) { return t.start_ns[r] < v; }) -
        rows.begin());
    for (; k < rows.size(); ++k)
      if (t.end_ns[rows[k]] > t.start_ns[rows[k]]) return static_cast<std::int64_t>(rows[k]);
    return -1;
  }
};

idle_cause dominant(idle_by_cause const& cover) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < cover.size(); ++c)
    if (cover[c] > cover[best]) best = c;
  return static_cast<idle_cause>(best);
}

}  // namespace

std::vector<attributed_gap> attribute_gaps(trace_model const& model, device_rows const& order,
                                           std::span<gap const> holes,
                                           host_classifier const& classifier,
                                           std::span<std::optional<host_index::key> const> fallback,
                                           diagnosis& out) {
  auto const& t = model.table();
  neighbours const near(order, t);
  std::vector<attributed_gap> gaps;
  std::vector<std::pair<std::int64_t, std::int64_t>> sides;  ///< (before, after) rows per gap
  std::vector<host_index::query> wanted;
  for (auto const& g : holes) {
    attributed_gap a;
    a.device = g.group;
    a.start = g.start;
    a.end = g.end;
    auto const before = near.before(g.group, g.start);
    auto const after = near.after(g.group, g.end);
    for (auto const row : {before, after})
      if (auto k = launching_thread(model, row)) a.threads.push_back(*k);
    if (a.threads.empty() && fallback[g.group]) a.threads.push_back(*fallback[g.group]);
    std::sort(a.threads.begin(), a.threads.end());
    a.threads.erase(std::unique(a.threads.begin(), a.threads.end()), a.threads.end());
    for (auto const& k : a.threads) wanted.push_back({k, a.start, a.end});
    sides.emplace_back(before, after);
    gaps.push_back(std::move(a));
  }
  host_index const index(model, classifier, std::move(wanted));

  std::vector<host_window> windows;
  windows.reserve(gaps.size());
  for (auto& a : gaps) {
    auto w = attribute(model, index, a.threads, a.start, a.end);
    a.cover = w.cover;
    a.cause = dominant(w.cover);
    windows.push_back(std::move(w));
  }

  // Longest first (then device, start) and the top of them with their context.
  std::vector<std::size_t> rank(gaps.size());
  for (std::size_t i = 0; i < rank.size(); ++i) rank[i] = i;
  std::sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
    auto const da = gaps[a].end - gaps[a].start, db = gaps[b].end - gaps[b].start;
    if (da != db) return da > db;
    return std::tie(gaps[a].device, gaps[a].start) < std::tie(gaps[b].device, gaps[b].start);
  });
  out.gaps_total = static_cast<std::int64_t>(gaps.size());
  std::size_t const keep =
      out.options.top == 0 ? rank.size() : std::min(out.options.top, rank.size());
  for (std::size_t k = 0; k < keep; ++k) {
    auto const i = rank[k];
    auto const& a = gaps[i];
    gap_finding f;
    f.where = key_of(model, a.device);
    f.start_ns = a.start;
    f.end_ns = a.end;
    f.cause = a.cause;
    f.cover = a.cover;
    auto const& rows = windows[i].rows;
    for (std::size_t h = 0; h < rows.size() && h < out.options.host_events; ++h)
      f.host.push_back(describe(model, rows[h].second));
    if (sides[i].first >= 0) f.before = describe(model, static_cast<std::size_t>(sides[i].first));
    if (sides[i].second >= 0) f.after = describe(model, static_cast<std::size_t>(sides[i].second));
    out.gaps.push_back(std::move(f));
  }
  for (auto const& a : gaps) {
    out.gap_durations.push_back(a.end - a.start);
    out.gap_causes.push_back(a.cause);
  }
  return gaps;
}

}  // namespace tracesweep::diagnose_detail
