// SPDX-License-Identifier: Apache-2.0
// Dense lanes for the streams (or threads) of each group of rows: a profiler lists the rows of
// one stream in start order, so rows listed lane by lane come as a few ascending runs, which a
// union merges instead of sorting.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <tracesweep/intervals.hpp>
#include <tracesweep/uninitialized_vector.hpp>

namespace tracesweep {

/// The first streams a group shows get lanes 0, 1, … in the order they come; any stream past
/// `shared_lane` of them shares that lane. Stream ids below `direct_ids` (nsys numbers streams
/// and threads from 0) find their lane in one look-up.
class stream_lanes {
 public:
  static constexpr group_id shared_lane = 31;
  static constexpr group_id per_group = shared_lane + 1;
  static constexpr std::int64_t direct_ids = 64;

  explicit stream_lanes(std::size_t groups = 0) { grow(groups); }

  /// The lane of `stream` in group `g`.
  group_id lane(group_id g, std::int64_t stream) {
    if (g >= _count.size()) grow(std::size_t{g} + 1);
    if (stream >= 0 && stream < direct_ids) {
      group_id& lane = _direct[std::size_t{g} * direct_ids + static_cast<std::size_t>(stream)];
      if (lane == unknown) lane = search(g, stream);
      return lane;
    }
    return search(g, stream);
  }

  /// (group, lane) as one dense id: g × per_group + lane.
  group_id run(group_id g, std::int64_t stream) { return g * per_group + lane(g, stream); }

 private:
  static constexpr group_id unknown = ~group_id{0};
  void grow(std::size_t groups) {
    _direct.resize(groups * direct_ids, unknown);
    _seen.resize(groups * shared_lane);
    _count.resize(groups, 0);
    _last.resize(groups);
  }
  /// The lane of a stream id past the direct ones (host thread ids are): the group's last one
  /// found first (a thread's rows come together), then the group's streams in turn.
  group_id search(group_id g, std::int64_t stream) {
    auto& last = _last[g];
    if (last.lane != unknown && last.stream == stream) return last.lane;
    std::int64_t* const seen = _seen.data() + std::size_t{g} * shared_lane;
    group_id& count = _count[g];
    group_id l = 0;
    while (l < count && seen[l] != stream) ++l;
    if (l == count && count < shared_lane) seen[count++] = stream;
    last = {stream, l};
    return l;
  }
  std::vector<group_id> _direct;    ///< lane of (group, stream id < direct_ids), or unknown
  std::vector<std::int64_t> _seen;  ///< group g's streams from g × shared_lane
  std::vector<group_id> _count;     ///< streams seen per group
  struct found {
    std::int64_t stream = 0;
    group_id lane = unknown;
  };
  std::vector<found> _last;  ///< per group: the stream search found last and its lane
};

/// At most how many of `total` rows a caller lists for one union call, taking whole groups a
/// batch (a larger group alone): an eighth, within [2^16, 2^21]. A batch's lists and union (about
/// 44 bytes a row) are freed and taken again by the next, so their pages are touched once, not
/// once for every row (fresh pages are dear), for a scan of the rows a batch.
[[nodiscard]] constexpr std::size_t rows_per_union_batch(std::size_t total) noexcept {
  return std::clamp(total / 8, std::size_t{1} << 16, std::size_t{1} << 21);
}

/// Calls f(lo, hi, rows) for consecutive batches [lo, hi) of the groups whose row counts are
/// `rows_of` (in group order), each batch as many whole groups as rows_per_union_batch of the
/// total allows (at least one), `rows` its row count.
template <class Counts, class F>
void for_each_union_batch(Counts const& rows_of, F&& f) {
  std::size_t total = 0;
  for (auto const n : rows_of) total += static_cast<std::size_t>(n);
  auto const per_batch = rows_per_union_batch(total);
  std::size_t const groups = std::size(rows_of);
  for (std::size_t lo = 0, hi = 0; lo < groups; lo = hi) {
    std::size_t taken = 0;
    for (; hi < groups; ++hi) {
      auto const n = static_cast<std::size_t>(rows_of[hi]);
      if (hi > lo && taken + n > per_batch) break;
      taken += n;
    }
    f(lo, hi, taken);
  }
}

/// Rows listed run by run, each with its group (filled by a scatter: not zeroed first).
struct rows_in_runs {
  uninitialized_vector<std::size_t> rows;
  uninitialized_vector<group_id> group;
};

/// Whether the rows of each group, seen one at a time, come in start order (an nsys export's
/// tables are in start order, their devices, streams and threads interleaved): the check a
/// caller makes in the pass that assigns the groups before it hands a union row-order input.
class start_order {
 public:
  explicit start_order(std::size_t groups = 0) { add_groups(groups); }
  /// Room for groups below `groups`.
  void add_groups(std::size_t groups) {
    if (groups > _last.size()) _last.resize(groups, std::numeric_limits<std::int64_t>::min());
  }
  /// Notes a row of group `g` (below the groups made room for) starting at `start`; whether every
  /// group's rows came in start order so far.
  bool add(group_id g, std::int64_t start) noexcept {
    _holds = _holds && start >= _last[g];
    _last[g] = start;
    return _holds;
  }
  [[nodiscard]] bool holds() const noexcept { return _holds; }

 private:
  std::vector<std::int64_t> _last;  ///< per group: the start of its last row
  bool _holds = true;
};

/// Whether the rows of each group (run_group[run[k]] for rows[k], below `groups`) come in the
/// order of `start`.
[[nodiscard]] inline bool groups_in_start_order(std::span<std::size_t const> rows,
                                                std::span<group_id const> run,
                                                std::span<group_id const> run_group,
                                                std::size_t groups,
                                                std::span<std::int64_t const> start) {
  start_order order(groups);
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!order.add(run_group[run[k]], start[rows[k]])) return false;
  return true;
}

/// `rows` listed by run (run[k] for rows[k], below run_group.size()), in their order within a
/// run (a stable counting sort), each with its run's group. Given the start column, where each
/// group's rows already come in start order (an nsys export's tables are in start order, its
/// streams and threads interleaved) they are listed by group alone: a union over the listing
/// then has no runs to merge.
[[nodiscard]] inline rows_in_runs list_by_run(std::span<std::size_t const> rows,
                                              std::span<group_id const> run,
                                              std::span<group_id const> run_group,
                                              std::span<std::int64_t const> start = {}) {
  std::size_t groups = 0;
  for (auto const g : run_group) groups = std::max<std::size_t>(groups, std::size_t{g} + 1);
  bool const by_group =
      !start.empty() && groups_in_start_order(rows, run, run_group, groups, start);
  auto const key = [&](std::size_t k) -> std::size_t {
    return by_group ? run_group[run[k]] : run[k];
  };
  std::vector<std::size_t> next((by_group ? groups : run_group.size()) + 1, 0);
  for (std::size_t k = 0; k < rows.size(); ++k) ++next[key(k) + 1];
  for (std::size_t k = 1; k < next.size(); ++k) next[k] += next[k - 1];
  rows_in_runs out;
  out.rows.resize(rows.size()), out.group.resize(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    auto const at = next[key(k)]++;
    out.rows[at] = rows[k], out.group[at] = run_group[run[k]];
  }
  return out;
}

/// The group of each stream_lanes::run id below groups × stream_lanes::per_group.
[[nodiscard]] inline std::vector<group_id> groups_of_runs(std::size_t groups) {
  std::vector<group_id> out(groups * stream_lanes::per_group);
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r] = static_cast<group_id>(r / stream_lanes::per_group);
  return out;
}

}  // namespace tracesweep
