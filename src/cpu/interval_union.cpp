// SPDX-License-Identifier: Apache-2.0
// Union per group: drop empty intervals, sort by (group, start) with the radix sort (a packed
// 64-bit key when group and start range fit: not sorted when the keys come in order, merged when
// they come as a few ascending runs, swept a member open per group when each group's keys come
// in order however the groups interleave; else two stable passes), then the host sweep
// (union_builder) in contiguous chunks that are stitched afterwards. Of intervals, or of rows
// of whole columns (gathered once into the sort's keys, or not at all when not sorted).
#include <algorithm>
#include <bit>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include <tracesweep/row_order_union.hpp>
#include <tracesweep/task_threads.hpp>

#include "ascending_runs.hpp"
#include "primitives.hpp"
#include "radix_sort.hpp"

namespace tracesweep::cpu {
namespace {

/// Keys in few long ascending runs are merged rather than sorted: at most this many runs, of
/// this many keys on average at least (a merge costs the log of the runs interleaving at a key;
/// the radix sort a pass per byte of the key).
constexpr std::size_t max_merged_runs = std::size_t{1} << 16;
constexpr std::size_t min_run_length = 8;
/// Items of at most this many groups (and no more groups than items) are first swept in item
/// order, a member open per group, before they are sorted.
constexpr std::size_t max_open_groups = std::size_t{1} << 20;

/// Whether the items swept may hold empty intervals (end <= start), which add nothing.
enum class empties : bool { none, skipped };

/// Sweep of items [begin, end) in (group, start) order; `get(i)` yields (group, start, end).
template <typename Get>
interval_union sweep_range(Get const& get, std::size_t begin, std::size_t end, empties e) {
  // At most one member per item. Reserving that bound up front costs only address space (pages
  // are touched as members are written) and avoids the regrowth copies, which dominated when
  // nearly every interval is its own member.
  union_builder out(end - begin);
  if (e == empties::none) {
    out.add_all(get, begin, end);
  } else {
    for (std::size_t i = begin; i < end; ++i)
      if (auto const [g, s, e2] = get(i); e2 > s) out.add(g, s, e2);
  }
  return out.finish();
}

/// The union of unions of consecutive chunks of the sorted items: a chunk's leading members
/// that overlap or touch the previous chunk's last member of the same group merge into it.
interval_union joined(std::vector<interval_union>&& parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  std::size_t total = 0;
  for (auto const& part : parts) total += part.size();
  union_builder out(total);
  for (auto const& part : parts) out.append(part);
  return out.finish();
}

/// Runs the sweep on `threads` chunks and joins the chunk results.
template <typename Get>
interval_union sweep(Get const& get, std::size_t n, unsigned threads, empties e = empties::none) {
  item_chunks const chunks(0, n, threads);
  unsigned const workers = chunks.workers;
  std::vector<interval_union> parts(workers);
  run_workers(workers, [&](unsigned w) {
    auto const [b, end] = chunks[w];
    parts[w] = sweep_range(get, b, end, e);
  });
  return joined(std::move(parts));
}

/// A merge of the ascending runs of the items' keys into the sweep, on `threads` key ranges
/// whose results are joined as the sweep's chunks are; `get(i)` yields (group, start, end) of
/// item i, key(i) its (group, start) as one ascending key.
template <typename Get, typename Key>
interval_union merged_sweep(Get const& get, ascending_runs<Key> const& runs, unsigned threads) {
  unsigned const workers = item_chunks(0, runs.n, threads).workers;
  auto const cursors = split_runs(runs, workers);
  std::vector<interval_union> parts(workers);
  run_workers(workers, [&](unsigned w) {
    std::size_t n = 0;
    for (auto const c : cursors[w]) n += c.end - c.at;
    union_builder out(n);
    merge_runs(runs.key, cursors[w], [&](std::size_t i) {
      if (auto const [g, s, e] = get(i); e > s) out.add(g, s, e);
    });
    parts[w] = out.finish();
  });
  return joined(std::move(parts));
}

/// The sweep over n items whose keys come in order (one run starting at 0), or a merged sweep
/// of their ascending runs.
template <typename Get, typename Key>
interval_union sweep_runs(Get const& get, Key const& key, std::size_t n,
                          std::vector<std::size_t> const& run_starts, empties e, unsigned threads) {
  if (run_starts.size() == 1) return sweep(get, n, threads, e);
  return merged_sweep(get, ascending_runs<Key>{key, n, run_starts}, threads);
}

/// At most this many runs are merged of n items (see max_merged_runs).
std::size_t most_merged_runs(std::size_t n) {
  return std::min<std::size_t>(max_merged_runs, n / min_run_length);
}

}  // namespace

interval_union union_of_sorted(sorted_intervals sorted, unsigned threads) {
  auto get = [&sorted](std::size_t i) {
    return std::tuple{sorted.group[i], sorted.start[i], sorted.end[i]};
  };
  return sweep(get, sorted.start.size(), std::max(1u, threads));
}

namespace {

/// (group, start) as one 64-bit key ascending in both: (group << bits) | (start - base).
struct key_packing {
  std::uint64_t base = 0;
  int bits = 0;
  int group_bits = 0;
  [[nodiscard]] bool fits() const noexcept { return bits + group_bits <= 64; }
  [[nodiscard]] std::uint64_t operator()(group_id g, std::int64_t start) const noexcept {
    std::uint64_t const off = static_cast<std::uint64_t>(start) - base;
    return bits == 64 ? off : (std::uint64_t{g} << bits) | off;
  }
  [[nodiscard]] group_id group(std::uint64_t key) const noexcept {
    return static_cast<group_id>(bits == 64 ? 0 : key >> bits);
  }
  [[nodiscard]] std::int64_t start(std::uint64_t key) const noexcept {
    std::uint64_t const mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return static_cast<std::int64_t>((key & mask) + base);
  }
};

/// The range of the starts and groups of some intervals.
struct start_range {
  std::size_t count = 0;
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = std::numeric_limits<std::int64_t>::min();
  group_id max_group = 0;
  group_id last_group = 0;  ///< of the interval added last
  std::int64_t last_start = 0;
  void add(std::int64_t start, group_id g) noexcept {
    ++count, min = std::min(min, start), max = std::max(max, start);
    max_group = std::max(max_group, g);
    last_group = g, last_start = start;
  }
  [[nodiscard]] key_packing packing() const noexcept {
    auto const base = static_cast<std::uint64_t>(min);
    return {base, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(max) - base)),
            static_cast<int>(std::bit_width(std::uint64_t{max_group}))};
  }
};

/// The union of n intervals, interval i being at(i) = (start, end, group).
template <typename At>
interval_union union_of(std::size_t n, At const& at, unsigned threads) {
  threads = std::max(1u, threads);
  start_range all, kept;  // of every interval, of the non-empty ones
  // Where (group, start) descends, the key packing it does too, whichever the packing.
  run_start_finder runs(most_merged_runs(n));
  for (std::size_t i = 0; i < n; ++i) {
    auto const [start, end, group] = at(i);
    if (i > 0 && std::pair(group, start) < std::pair(all.last_group, all.last_start))
      runs.descent_at(i);
    all.add(start, group);
    if (end > start) kept.add(start, group);
  }
  std::size_t const m = kept.count;
  if (m == 0) return {};

  // Items in order (rows read in order, grouped as they come) or in a few ascending runs (each
  // stream's rows in start order, stream after stream) are swept as they are, empty ones
  // skipped, without gathering them.
  auto const direct = all.packing();
  auto const run_starts = std::move(runs).starts();
  if (direct.fits() && !run_starts.empty()) {
    auto get = [&](std::size_t i) {
      auto const [start, end, group] = at(i);
      return std::tuple{group, start, end};
    };
    auto key = [&](std::size_t i) {
      auto const [start, end, group] = at(i);
      return direct(group, start);
    };
    return sweep_runs(get, key, n, run_starts, m < n ? empties::skipped : empties::none, threads);
  }

  // Items whose groups interleave, each group's in start order (the rows of a table in start
  // order, listed as they come), are swept in one pass holding a member open per group.
  if (run_starts.empty() && all.max_group < std::min<std::size_t>(n, max_open_groups)) {
    auto item = [&](unsigned, std::size_t i) {
      auto const [start, end, group] = at(i);
      return std::tuple{true, group, start, end};
    };
    auto const groups = std::size_t{all.max_group} + 1;
    if (auto u =
            tracesweep::union_in_row_order(item, n, groups, item_chunks(0, n, threads).workers))
      return std::move(*u);
  }

  // Else the non-empty ones are gathered as packed keys with the end as payload, and sorted
  // unless they come as above once the empty ones are left out.
  auto const packed = kept.packing();
  if (packed.fits()) {
    std::vector<std::uint64_t> keys(m);
    std::vector<std::int64_t> ends(m);
    for (std::size_t i = 0, j = 0; i < n; ++i) {
      auto const [start, end, group] = at(i);
      if (end <= start) continue;
      keys[j] = packed(group, start), ends[j] = end;
      ++j;
    }
    auto get = [&](std::size_t i) {
      return std::tuple{packed.group(keys[i]), packed.start(keys[i]), ends[i]};
    };
    auto key = [&](std::size_t i) { return keys[i]; };
    if (m < n) {  // runs among the non-empty ones only
      auto const starts = ascending_run_starts(key, m, most_merged_runs(m));
      if (!starts.empty()) return sweep_runs(get, key, m, starts, empties::none, threads);
    }
    radix_sort<std::int64_t>(keys, ends, std::max(1, packed.bits + packed.group_bits), threads);
    return sweep(get, m, threads);
  }

  // Wide case (huge time range and many groups): stable sort by start, then stably by group.
  std::vector<std::uint64_t> keys(m);
  std::vector<std::uint64_t> index(m);
  for (std::size_t i = 0, j = 0; i < n; ++i) {
    auto const [start, end, group] = at(i);
    if (end <= start) continue;
    keys[j] = static_cast<std::uint64_t>(start) - packed.base;
    index[j] = i;
    ++j;
  }
  radix_sort<std::uint64_t>(keys, index, std::max(1, packed.bits), threads);
  for (std::size_t j = 0; j < m; ++j) keys[j] = std::get<2>(at(index[j]));
  radix_sort<std::uint64_t>(keys, index, std::max(1, packed.group_bits), threads);
  auto get = [&](std::size_t i) {
    auto const [start, end, group] = at(index[i]);
    return std::tuple{group, start, end};
  };
  return sweep(get, m, threads);
}

}  // namespace

interval_union union_by_group(interval_view iv, unsigned threads) {
  return union_of(
      iv.size(),
      [&iv](std::size_t i) {
        return std::tuple{iv.start[i], iv.end[i], iv.group[i]};
      },
      threads);
}

interval_union union_of_rows(std::span<std::int64_t const> start, std::span<std::int64_t const> end,
                             std::span<std::size_t const> rows, std::span<group_id const> group,
                             unsigned threads) {
  return union_of(
      rows.size(),
      [&](std::size_t k) {
        return std::tuple{start[rows[k]], end[rows[k]], group[k]};
      },
      threads);
}

std::optional<interval_union> union_in_row_order(std::span<std::int64_t const> start,
                                                 std::span<std::int64_t const> end,
                                                 std::span<group_id const> group,
                                                 std::size_t groups, unsigned threads) {
  auto const n = group.size();
  if (groups > std::min(n, max_open_groups)) return std::nullopt;  // a member open per group
  auto item = [&](unsigned, std::size_t i) {
    auto const g = group[i];
    return std::tuple{g < groups, g, start[i], end[i]};
  };
  return tracesweep::union_in_row_order(item, n, groups, item_chunks(0, n, threads).workers);
}

}  // namespace tracesweep::cpu
