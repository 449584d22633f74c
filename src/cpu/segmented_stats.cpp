// SPDX-License-Identifier: Apache-2.0
// Grouping by key, two ways. Dense keys (no more distinct key values up to the largest than
// values, the usual name indices): a counting sort moves the values into one buffer grouped by
// key, and each group's order statistics are found by selection (nth_element), not a full sort:
// one 8-byte buffer a value. Sparse keys: sort (key, value) with the radix sort (one packed
// 64-bit key when the key and value ranges fit, else two stable passes), then read the order
// statistics from each group's offsets. Either way Σx and Σx² are summed exactly in 128-bit
// integers. Of values, or of durations of rows of whole columns (computed as they are moved).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/task_threads.hpp>

#include "primitives.hpp"
#include "radix_sort.hpp"

namespace tracesweep::cpu {
namespace {

/// Sets out.sum and out.sum_sq to Σ value(i) and Σ value(i)² over [b, e); false when Σx² does
/// not fit in 128 bits.
template <typename Value>
bool add_sums(Value const& value, std::size_t b, std::size_t e, exact_stats& out) {
  int128 sum = 0;
  uint128 sum_sq = 0;
  bool overflow = false;
  for (std::size_t i = b; i < e; ++i) {
    std::int64_t const v = value(i);
    sum += v;
    // Squares of the unsigned magnitude: (-x)² == x², and |INT64_MIN| is representable.
    std::uint64_t const mag =
        v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    overflow |= __builtin_add_overflow(sum_sq, uint128{mag} * mag, &sum_sq);
  }
  out.sum = sum;
  out.sum_sq = sum_sq;
  return !overflow;
}

/// Fills `out` for the group occupying sorted positions [b, e). Returns false when Σx² does not
/// fit in 128 bits.
template <typename Value>
bool group_stats(Value const& value, std::size_t b, std::size_t e,
                 std::span<double const> quantiles, exact_stats& out) {
  std::uint64_t const n = e - b;
  out.count = n;
  out.min = value(b);
  out.max = value(e - 1);
  out.median_lo = value(b + (n - 1) / 2);
  out.median_hi = value(b + n / 2);
  out.quantile_lo.resize(quantiles.size());
  out.quantile_hi.resize(quantiles.size());
  for (std::size_t q = 0; q < quantiles.size(); ++q) {
    quantile_ranks const r = ranks_for_quantile(quantiles[q], n);
    out.quantile_lo[q] = value(b + r.lo);
    out.quantile_hi[q] = value(b + r.hi);
  }
  return add_sums(value, b, e, out);
}

/// Consecutive groups holding together at most `target` values (a larger group alone), with
/// their value count.
struct group_run {
  std::size_t first, end, values;
};

/// The runs of groups the workers claim one at a time, largest first, so that a few large groups
/// (a kernel name most rows carry) start early and the small runs fill in behind them.
std::vector<group_run> runs_of_groups(std::span<std::size_t const> offsets, std::size_t target) {
  std::size_t const groups = offsets.size() - 1;
  std::vector<group_run> runs;
  for (std::size_t g = 0; g < groups;) {
    std::size_t e = g + 1;
    while (e < groups && offsets[e + 1] - offsets[g] <= target) ++e;
    runs.push_back({g, e, offsets[e] - offsets[g]});
    g = e;
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](group_run const& a, group_run const& b) { return a.values > b.values; });
  return runs;
}

/// The statistics of each group g, the values at positions [offsets[g], offsets[g + 1])
/// (ascending offsets, the last one past every value) under key key_of(g), as fill(g, out) sets
/// them (false: Σx² overflowed). The threads claim runs of groups of about n / (16 × workers)
/// values, the largest first; each group is computed whole by one thread, so the result is the
/// same for any thread count.
template <typename KeyOf, typename Fill>
std::vector<exact_stats> stats_of_groups(std::span<std::size_t const> offsets, KeyOf const& key_of,
                                         Fill const& fill, unsigned threads) {
  std::size_t const groups = offsets.size() - 1;
  std::size_t const n = offsets.back();
  std::vector<exact_stats> out(groups);
  std::atomic<std::size_t> overflowed{groups};
  unsigned const workers = item_chunks(0, n, threads, std::size_t{1} << 16).workers;
  auto const runs = runs_of_groups(offsets, std::max<std::size_t>(1, n / (16 * workers)));
  std::atomic<std::size_t> next_run{0};
  run_workers(workers, [&](unsigned) {
    for (auto k = next_run.fetch_add(1); k < runs.size(); k = next_run.fetch_add(1))
      for (std::size_t g = runs[k].first; g < runs[k].end; ++g) {
        out[g].key = key_of(g);
        if (!fill(g, out[g])) {
          std::size_t expected = overflowed.load();
          while (g < expected && !overflowed.compare_exchange_weak(expected, g)) {
          }
        }
      }
  });
  if (overflowed.load() < groups)
    throw std::overflow_error("segmented_stats: the sum of squares of key " +
                              std::to_string(out[overflowed.load()].key) + " exceeds 128 bits");
  return out;
}

/// Group offsets of the sorted rows, then the statistics per group (stats_of_groups).
template <typename Key, typename Value>
std::vector<exact_stats> stats_of_sorted(Key const& key, Value const& value, std::size_t n,
                                         std::span<double const> quantiles, unsigned threads) {
  std::vector<std::size_t> offsets{0};
  for (std::size_t i = 1; i < n; ++i)
    if (key(i) != key(i - 1)) offsets.push_back(i);
  offsets.push_back(n);
  return stats_of_groups(
      offsets, [&](std::size_t g) { return key(offsets[g]); },
      [&](std::size_t g, exact_stats& out) {
        return group_stats(value, offsets[g], offsets[g + 1], quantiles, out);
      },
      threads);
}

/// Fills `out` for the n values at `v` (in any order; reordered here) as group_stats does for
/// sorted ones: the least and the greatest are moved to the ends, and each rank group_stats reads
/// in between is selected (nth_element over what lies past the rank before it), so that `v`
/// reads as sorted wherever group_stats looks. False when Σx² does not fit in 128 bits.
bool selected_stats(std::int64_t* v, std::size_t n, std::span<double const> quantiles,
                    exact_stats& out) {
  std::iter_swap(v, std::min_element(v, v + n));
  if (n > 1) std::iter_swap(v + n - 1, std::max_element(v + 1, v + n));
  std::vector<std::uint64_t> ranks{(n - 1) / 2, n / 2};
  for (auto const q : quantiles) {
    quantile_ranks const r = ranks_for_quantile(q, n);
    ranks.push_back(r.lo), ranks.push_back(r.hi);
  }
  std::sort(ranks.begin(), ranks.end());
  std::size_t from = 1;
  for (auto const r : ranks)
    if (r >= from && r + 1 < n) std::nth_element(v + from, v + r, v + n - 1), from = r + 1;
  return group_stats([v](std::size_t i) { return v[i]; }, 0, n, quantiles, out);
}

/// Statistics per key of n values by a counting sort on keys below `key_count`: per thread a
/// count of each key over its chunk of rows, then each (key, chunk) its slots in one buffer, and
/// the values moved there; then selected_stats per key present.
template <typename ValueAt>
std::vector<exact_stats> stats_by_dense_key(std::span<std::uint32_t const> keys,
                                            ValueAt const& value_at, std::size_t key_count,
                                            std::span<double const> quantiles, unsigned threads) {
  std::size_t const n = keys.size();
  item_chunks const chunks(0, n, threads, std::size_t{1} << 16);
  unsigned const workers = chunks.workers;
  std::vector<std::size_t> slot(workers * key_count, 0);  // [w * key_count + k]
  run_workers(workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    auto* const count = slot.data() + w * key_count;
    for (auto i = b; i < e; ++i) ++count[keys[i]];
  });
  std::vector<std::size_t> offsets;  // of the keys present, then n
  std::vector<std::uint32_t> present;
  for (std::size_t k = 0, at = 0; k < key_count; ++k) {
    std::size_t const first = at;
    for (unsigned w = 0; w < workers; ++w) {
      auto& s = slot[w * key_count + k];
      at += std::exchange(s, at);
    }
    if (at > first) offsets.push_back(first), present.push_back(static_cast<std::uint32_t>(k));
  }
  offsets.push_back(n);
  auto const grouped = std::make_unique_for_overwrite<std::int64_t[]>(n);
  run_workers(workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    auto* const next = slot.data() + w * key_count;
    for (auto i = b; i < e; ++i) grouped[next[keys[i]]++] = value_at(i);
  });
  return stats_of_groups(
      offsets, [&](std::size_t g) { return present[g]; },
      [&](std::size_t g, exact_stats& out) {
        return selected_stats(grouped.get() + offsets[g], offsets[g + 1] - offsets[g], quantiles,
                              out);
      },
      threads);
}

}  // namespace

namespace {

/// Statistics per key of n values, value i being value_at(i) under key keys[i].
template <typename ValueAt>
std::vector<exact_stats> stats_by_key(std::span<std::uint32_t const> keys, ValueAt const& value_at,
                                      std::span<double const> quantiles, unsigned threads) {
  threads = std::max(1u, threads);
  std::size_t const n = keys.size();
  if (n == 0) return {};

  std::uint32_t const kmax = *std::max_element(keys.begin(), keys.end());
  // Dense keys: no more counters than values (and a few for tiny inputs).
  if (std::size_t{kmax} < std::max<std::size_t>(n, 4096))
    return stats_by_dense_key(keys, value_at, std::size_t{kmax} + 1, quantiles, threads);

  std::int64_t vmin = std::numeric_limits<std::int64_t>::max();
  std::int64_t vmax = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t const v = value_at(i);
    vmin = std::min(vmin, v);
    vmax = std::max(vmax, v);
  }
  auto const base = static_cast<std::uint64_t>(vmin);
  int const vbits = std::bit_width(static_cast<std::uint64_t>(vmax) - base);
  int const kbits = std::bit_width(std::uint64_t{kmax});

  if (vbits + kbits <= 64) {
    // One packed key (key << vbits) | (value - min); no payload.
    std::vector<std::uint64_t> packed(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t const off = static_cast<std::uint64_t>(value_at(i)) - base;
      packed[i] = vbits == 64 ? off : (std::uint64_t{keys[i]} << vbits) | off;
    }
    radix_sort<no_payload>(packed, {}, std::max(1, vbits + kbits), threads);
    std::uint64_t const mask = vbits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << vbits) - 1;
    auto key = [&](std::size_t i) {
      return static_cast<std::uint32_t>(vbits == 64 ? 0 : packed[i] >> vbits);
    };
    auto value = [&](std::size_t i) {
      return static_cast<std::int64_t>((packed[i] & mask) + base);
    };
    return stats_of_sorted(key, value, n, quantiles, threads);
  }

  // Wide values with many keys: stable sort by value, then stably by key.
  std::vector<std::uint64_t> sort_keys(n);
  std::vector<std::uint32_t> group_of(keys.begin(), keys.end());
  for (std::size_t i = 0; i < n; ++i) sort_keys[i] = static_cast<std::uint64_t>(value_at(i)) - base;
  radix_sort<std::uint32_t>(sort_keys, group_of, std::max(1, vbits), threads);
  std::vector<std::uint64_t> value_off(std::move(sort_keys));
  std::vector<std::uint64_t> group_keys(group_of.begin(), group_of.end());
  radix_sort<std::uint64_t>(group_keys, value_off, std::max(1, kbits), threads);
  auto key = [&](std::size_t i) { return static_cast<std::uint32_t>(group_keys[i]); };
  auto value = [&](std::size_t i) { return static_cast<std::int64_t>(value_off[i] + base); };
  return stats_of_sorted(key, value, n, quantiles, threads);
}

}  // namespace

std::vector<exact_stats> segmented_stats(std::span<std::uint32_t const> keys,
                                         std::span<std::int64_t const> values,
                                         std::span<double const> quantiles, unsigned threads) {
  return stats_by_key(
      keys, [&](std::size_t i) { return values[i]; }, quantiles, threads);
}

std::vector<exact_stats> duration_stats(std::span<std::int64_t const> start,
                                        std::span<std::int64_t const> end,
                                        std::span<std::size_t const> rows,
                                        std::span<std::uint32_t const> keys,
                                        std::span<double const> quantiles, unsigned threads) {
  if (rows.empty())
    return stats_by_key(
        keys, [&](std::size_t k) { return end[k] - start[k]; }, quantiles, threads);
  return stats_by_key(
      keys, [&](std::size_t k) { return end[rows[k]] - start[rows[k]]; }, quantiles, threads);
}

}  // namespace tracesweep::cpu
