// SPDX-License-Identifier: Apache-2.0
// Sort-based grouping: sort (key, value) with the radix sort (one packed 64-bit key when the key
// and value ranges fit, else two stable passes), then read count, min, max and the order
// statistics from each group's offsets, and sum Σx and Σx² exactly in 128-bit integers. Of
// values, or of durations of rows of whole columns (packed straight into the sort's keys).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel.hpp"
#include "primitives.hpp"
#include "radix_sort.hpp"

namespace tracesweep::cpu {
namespace {

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

/// Group offsets of the sorted rows, then the statistics per group, groups split across threads
/// by row count (each group is computed whole by one thread, so the result is the same for any
/// thread count).
template <typename Key, typename Value>
std::vector<exact_stats> stats_of_sorted(Key const& key, Value const& value, std::size_t n,
                                         std::span<double const> quantiles, unsigned threads) {
  std::vector<std::size_t> offsets{0};
  for (std::size_t i = 1; i < n; ++i)
    if (key(i) != key(i - 1)) offsets.push_back(i);
  std::size_t const groups = offsets.size();
  offsets.push_back(n);

  std::vector<exact_stats> out(groups);
  std::atomic<std::size_t> overflowed{groups};
  unsigned const workers = useful_threads(threads, n);
  fork_join(workers, [&](unsigned w) {
    auto const [rb, re] = chunk_range(n, workers, w);
    // Groups whose first row lies in [rb, re).
    auto const gb = static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.end() - 1, rb) - offsets.begin());
    auto const ge = static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.end() - 1, re) - offsets.begin());
    for (std::size_t g = gb; g < ge; ++g) {
      out[g].key = key(offsets[g]);
      if (!group_stats(value, offsets[g], offsets[g + 1], quantiles, out[g])) {
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

}  // namespace

namespace {

/// Statistics per key of n values, value i being value_at(i) under key keys[i].
template <typename ValueAt>
std::vector<exact_stats> stats_by_key(std::span<std::uint32_t const> keys, ValueAt const& value_at,
                                      std::span<double const> quantiles, unsigned threads) {
  threads = std::max(1u, threads);
  std::size_t const n = keys.size();
  if (n == 0) return {};

  std::int64_t vmin = std::numeric_limits<std::int64_t>::max();
  std::int64_t vmax = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t const v = value_at(i);
    vmin = std::min(vmin, v);
    vmax = std::max(vmax, v);
  }
  std::uint32_t const kmax = *std::max_element(keys.begin(), keys.end());
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
  return stats_by_key(
      keys, [&](std::size_t k) { return end[rows[k]] - start[rows[k]]; }, quantiles, threads);
}

}  // namespace tracesweep::cpu
