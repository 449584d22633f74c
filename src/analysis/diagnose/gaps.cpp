// SPDX-License-Identifier: Apache-2.0
// Idle gaps with their cause: for each hole of a device's activity union (from the backend's gap
// scan), the device rows just before and after it, the threads that launched them, the host
// activity of those threads during the hole and the cause covering most of it.
#include <algorithm>
#include <array>
#include <span>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

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

/// The launching threads around a gap (of the rows before and after it, else the device's main
/// thread), at most two, and those rows.
struct gap_sides {
  std::int64_t before = -1, after = -1;
  std::array<host_index::key, 2> threads{};
  std::size_t count = 0;
  [[nodiscard]] std::span<host_index::key const> keys() const { return {threads.data(), count}; }
};

gap_sides sides_of(trace_model const& model, neighbours const& near, gap const& g,
                   std::span<std::optional<host_index::key> const> fallback) {
  gap_sides s;
  s.before = near.before(g.group, g.start);
  s.after = near.after(g.group, g.end);
  for (auto const row : {s.before, s.after})
    if (auto k = launching_thread(model, row)) s.threads[s.count++] = *k;
  if (s.count == 0 && fallback[g.group]) s.threads[s.count++] = *fallback[g.group];
  if (s.count == 2 && s.threads[1] < s.threads[0]) std::swap(s.threads[0], s.threads[1]);
  if (s.count == 2 && s.threads[0] == s.threads[1]) s.count = 1;
  return s;
}

/// A kept gap, of cause `cause` (dominant(w.cover)), with its context as rows: its host rows (the
/// most overlap first, at most host_events) appended to out.gap_host_rows.
gap_finding finding_of(trace_model const& model, gap const& g, idle_cause cause,
                       gap_sides const& sides, host_window const& w, diagnosis& out) {
  gap_finding f;
  f.where = key_of(model, g.group);
  f.cause = cause;
  f.start_ns = g.start;
  f.end_ns = g.end;
  f.cover = w.cover;
  f.host_from = out.gap_host_rows.size();
  for (std::size_t h = 0; h < w.rows.size() && h < out.options.host_events; ++h)
    out.gap_host_rows.push_back(w.rows[h].second);
  f.host_to = out.gap_host_rows.size();
  f.before = sides.before;
  f.after = sides.after;
  return f;
}

/// Longest first, then by (device, start).
bool longer(gap const& a, gap const& b) {
  if (a.duration() != b.duration()) return a.duration() > b.duration();
  return std::tie(a.group, a.start) < std::tie(b.group, b.start);
}

/// The positions in `holes` of the `top` longest (all when top is 0), longest first: a bounded
/// heap while scanning, so --top N keeps N positions, not one per gap.
std::vector<std::size_t> longest(std::span<gap const> holes, std::size_t top) {
  // As a heap's order, the front is the shortest kept: the one a longer gap replaces.
  auto const first = [&](std::size_t a, std::size_t b) { return longer(holes[a], holes[b]); };
  std::vector<std::size_t> kept;
  std::size_t const n = top == 0 ? holes.size() : std::min(top, holes.size());
  kept.reserve(n);
  for (std::size_t i = 0; i < holes.size(); ++i) {
    if (kept.size() < n) {
      kept.push_back(i);
      if (top != 0) std::push_heap(kept.begin(), kept.end(), first);
    } else if (n > 0 && first(i, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), first);
      kept.back() = i;
      std::push_heap(kept.begin(), kept.end(), first);
    }
  }
  std::sort(kept.begin(), kept.end(), first);
  return kept;
}

/// The cause of every hole, each found on its own: in parallel on the arena's threads, the
/// same causes in any order.
std::vector<idle_cause> causes_of(trace_model const& model, neighbours const& near,
                                  host_index const& index, std::span<gap const> holes,
                                  std::span<std::optional<host_index::key> const> fallback) {
  std::vector<idle_cause> out(holes.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, holes.size(), 256), [&](auto const& r) {
    for (auto i = r.begin(); i != r.end(); ++i) {
      auto const& g = holes[i];
      auto const sides = sides_of(model, near, g, fallback);
      out[i] = dominant(attribute(model, index, sides.keys(), g.start, g.end).cover);
    }
  });
  return out;
}

/// The host windows a gap's attribution reads: each gap's interval on its launching threads, in
/// hole order (found in parallel, by chunks of holes, joined in order).
std::vector<host_index::query> wanted_windows(
    trace_model const& model, neighbours const& near, std::span<gap const> holes,
    std::span<std::optional<host_index::key> const> fallback) {
  std::size_t const chunks = std::min<std::size_t>(64, holes.size() / 1024 + 1);
  std::vector<std::vector<host_index::query>> parts(chunks);
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    auto const from = holes.size() * c / chunks, to = holes.size() * (c + 1) / chunks;
    parts[c].reserve(to - from);
    for (auto i = from; i < to; ++i) {
      auto const sides = sides_of(model, near, holes[i], fallback);  // keys() points into it
      for (auto const& k : sides.keys()) parts[c].push_back({k, holes[i].start, holes[i].end});
    }
  });
  if (chunks == 1) return std::move(parts[0]);
  std::size_t n = 0;
  for (auto const& p : parts) n += p.size();
  std::vector<host_index::query> out;
  out.reserve(n);
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end()), p = {};
  return out;
}

}  // namespace

std::vector<attributed_gap> attribute_gaps(trace_model const& model, device_rows const& order,
                                           std::span<gap const> holes,
                                           host_classifier const& classifier,
                                           std::span<std::optional<host_index::key> const> fallback,
                                           diagnosis& out) {
  neighbours const near(order, model.table());
  host_index const index(model, classifier, wanted_windows(model, near, holes, fallback));

  // The top of them (every gap with --top 0) in hole order, each with its place in the list.
  auto const top = longest(holes, out.options.top);
  std::vector<std::pair<std::size_t, std::size_t>> kept;  // (position in holes, place in top)
  kept.reserve(top.size());
  for (std::size_t k = 0; k < top.size(); ++k) kept.emplace_back(top[k], k);
  std::sort(kept.begin(), kept.end());
  out.gaps.resize(top.size());
  out.events = &model.table();

  // Each gap's cause (24 bytes kept a gap), and the context of the kept ones as rows, in hole
  // order. With a short list (not --top 0) the causes are found first, in parallel, and only the
  // listed gaps are attributed again for their context; with a long one, in this one pass.
  std::vector<idle_cause> const found = kept.size() * 4 < holes.size()
                                            ? causes_of(model, near, index, holes, fallback)
                                            : std::vector<idle_cause>{};
  std::vector<attributed_gap> gaps;
  gaps.reserve(holes.size());
  out.gap_durations.reserve(holes.size());
  out.gap_causes.reserve(holes.size());
  auto next = kept.begin();
  for (std::size_t i = 0; i < holes.size(); ++i) {
    auto const& g = holes[i];
    bool const listed = next != kept.end() && next->first == i;
    auto cause = found.empty() ? idle_cause::unknown : found[i];
    if (found.empty() || listed) {
      auto const sides = sides_of(model, near, g, fallback);
      auto const w = attribute(model, index, sides.keys(), g.start, g.end);
      cause = dominant(w.cover);
      if (listed) out.gaps[(next++)->second] = finding_of(model, g, cause, sides, w, out);
    }
    gaps.push_back({g.group, cause, g.start, g.end});
    out.gap_durations.push_back(g.duration());
    out.gap_causes.push_back(cause);
  }
  out.gaps_total = static_cast<std::int64_t>(gaps.size());
  return gaps;
}

}  // namespace tracesweep::diagnose_detail
