// SPDX-License-Identifier: Apache-2.0
// Key normalisation, bit-range choice, chunk sizing and stitching of the CUDA backend: plain
// C++, checked against brute force.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cuda/detail/planning.hpp"

namespace tracesweep::cuda_detail {
namespace {

TEST(DevicePlanning, BitsFor) {
  EXPECT_EQ(bits_for(0), 0);
  EXPECT_EQ(bits_for(1), 1);
  EXPECT_EQ(bits_for(255), 8);
  EXPECT_EQ(bits_for(256), 9);
  EXPECT_EQ(bits_for((std::uint64_t{1} << 42) - 1), 42);
  EXPECT_EQ(bits_for(~std::uint64_t{0}), 64);
}

TEST(DevicePlanning, NormaliseCoversTheFullInt64Range) {
  auto const lo = std::numeric_limits<std::int64_t>::min();
  auto const hi = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(normalise(lo, lo), 0u);
  EXPECT_EQ(normalise(hi, lo), ~std::uint64_t{0});
  EXPECT_EQ(normalise(-5, -7), 2u);
  // order preserving
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    auto a = static_cast<std::int64_t>(rng()), b = static_cast<std::int64_t>(rng());
    auto const m = std::min(a, b);
    EXPECT_EQ(a < b, normalise(a, m) < normalise(b, m));
  }
}

TEST(DevicePlanning, PassesPackAdjacentColumnsGreedily) {
  int const fits[] = {20, 44};
  auto p = plan_sort_passes(fits);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].end_bit, 64);
  ASSERT_EQ(p[0].columns.size(), 2u);
  EXPECT_EQ(p[0].columns[0].column, 1);  // least significant at shift 0
  EXPECT_EQ(p[0].columns[0].shift, 0);
  EXPECT_EQ(p[0].columns[1].column, 0);
  EXPECT_EQ(p[0].columns[1].shift, 44);

  int const split[] = {10, 40, 30};  // 30+? 40 > 64 → {30}, then {40,10}
  p = plan_sort_passes(split);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].end_bit, 30);
  EXPECT_EQ(p[0].columns.size(), 1u);
  EXPECT_EQ(p[1].end_bit, 50);
  EXPECT_EQ(p[1].columns[0].column, 1);
  EXPECT_EQ(p[1].columns[1].column, 0);
  EXPECT_EQ(p[1].columns[1].shift, 40);

  int const constant[] = {0, 0};
  EXPECT_TRUE(plan_sort_passes(constant).empty());
  int const wide[] = {64, 64};
  EXPECT_EQ(plan_sort_passes(wide).size(), 2u);
}

TEST(DevicePlanning, PassesGiveTheLexicographicOrder) {
  // Simulate the plan with std::stable_sort on packed keys and compare to a tuple sort.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    int const bits[] = {static_cast<int>(rng() % 40), static_cast<int>(rng() % 40),
                        static_cast<int>(rng() % 40)};
    std::size_t const n = 300;
    std::vector<std::array<std::uint64_t, 3>> rows(n);
    for (auto& r : rows)
      for (int c = 0; c < 3; ++c)
        r[c] = bits[c] == 0 ? 0 : (rng() % 4) & ((std::uint64_t{1} << bits[c]) - 1);
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
    for (auto const& pass : plan_sort_passes(bits)) {
      std::vector<std::pair<std::uint64_t, std::uint32_t>> kv(n);
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t k = 0;
        for (auto const& c : pass.columns) k |= rows[order[i]][c.column] << c.shift;
        ASSERT_TRUE(pass.end_bit == 64 || k < (std::uint64_t{1} << pass.end_bit));
        kv[i] = {k, order[i]};
      }
      std::stable_sort(kv.begin(), kv.end(),
                       [](auto const& a, auto const& b) { return a.first < b.first; });
      for (std::size_t i = 0; i < n; ++i) order[i] = kv[i].second;
    }
    std::vector<std::uint32_t> expect(n);
    for (std::uint32_t i = 0; i < n; ++i) expect[i] = i;
    std::stable_sort(expect.begin(), expect.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return rows[a] < rows[b]; });
    EXPECT_EQ(order, expect);
  }
}

TEST(DevicePlanning, ChunkSizing) {
  EXPECT_EQ(rows_per_chunk(0, 100, 1000), 1000u);
  EXPECT_EQ(rows_per_chunk(64 << 20, 64, 1'000'000'000), (64u << 20) / 64);
  EXPECT_EQ(rows_per_chunk(10, 100, 1000), 1u);
  EXPECT_EQ(rows_per_chunk(1 << 30, 100, 5), 5u);
  auto const r = split_rows(10, 4);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (row_range{0, 4}));
  EXPECT_EQ(r[2], (row_range{8, 10}));
  EXPECT_TRUE(split_rows(0, 4).empty());
}

TEST(DevicePlanning, RadixSortTemporaryStorage) {
  // 8 passes of 256 four-byte bins, one look-back tile, 8 counters, each 256-aligned, + 256
  EXPECT_EQ(radix_sort_temp_bytes(1000, 64), 8192u + 1024 + 256 + 256);
  EXPECT_EQ(radix_sort_temp_bytes(1000, 8), 1024u + 1024 + 256 + 256);
  // about a byte a row for the look-back
  EXPECT_EQ(radix_sort_temp_bytes(std::size_t{1} << 20, 16), 2048u + (1u << 20) + 256 + 256);
  std::size_t const two_portions = (std::size_t{1} << 28) + 1;
  EXPECT_EQ(radix_sort_temp_bytes(two_portions, 8), 2048u + (std::size_t{1} << 28) + 256 + 256);
  EXPECT_LE(radix_sort_temp_bytes(1, 64), std::size_t{16} << 10);
}

/// The process's device budget split among the backends in use at once (a scan's workers).
TEST(DevicePlanning, BudgetShares) {
  std::size_t const budget = std::size_t{96} << 30;
  EXPECT_EQ(budget_share(budget, 0), budget);  // 0 workers: one backend
  EXPECT_EQ(budget_share(budget, 1), budget);
  EXPECT_EQ(budget_share(budget, 2), std::size_t{48} << 30);
  EXPECT_EQ(budget_share(budget, 3), std::size_t{32} << 30);
  EXPECT_EQ(budget_share(1000, 16), 62u);
  for (unsigned w = 1; w <= 64; ++w) EXPECT_LE(budget_share(budget, w) * w, budget) << w;
}

TEST(DevicePlanning, MergeSortedRunsIsAStableSort) {
  std::mt19937_64 rng(3);
  for (std::size_t chunk : {1u, 3u, 17u, 1000u}) {
    std::size_t const n = 500;
    std::vector<std::uint64_t> k(n);
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      k[i] = rng() % 50;
      v[i] = static_cast<std::uint32_t>(i);
    }
    std::vector<std::pair<std::uint64_t, std::uint32_t>> expect;
    for (std::size_t i = 0; i < n; ++i) expect.emplace_back(k[i], v[i]);
    std::stable_sort(expect.begin(), expect.end(),
                     [](auto const& a, auto const& b) { return a.first < b.first; });
    auto const runs = split_rows(n, chunk);
    for (auto const& r : runs) {  // sort each run, as the device does per chunk
      std::vector<std::pair<std::uint64_t, std::uint32_t>> part;
      for (std::size_t i = r.begin; i < r.end; ++i) part.emplace_back(k[i], v[i]);
      std::stable_sort(part.begin(), part.end(),
                       [](auto const& a, auto const& b) { return a.first < b.first; });
      for (std::size_t i = r.begin; i < r.end; ++i) std::tie(k[i], v[i]) = part[i - r.begin];
    }
    merge_sorted_runs(k, v, runs);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(k[i], expect[i].first);
      ASSERT_EQ(v[i], expect[i].second);
    }
  }
}

TEST(DevicePlanning, StitchUnionsMergesAcrossParts) {
  interval_union a{{0, 0, 1}, {0, 10, 5}, {5, 20, 6}};
  interval_union b{{0, 0, 2}, {5, 30, 1}, {8, 40, 2}};  // touches [0,5), bridges nothing else
  auto const u = stitch_unions({a, b});
  EXPECT_EQ(u.group, (std::vector<group_id>{0, 0, 0, 1, 2}));
  EXPECT_EQ(u.start, (std::vector<std::int64_t>{0, 10, 30, 5, 1}));
  EXPECT_EQ(u.end, (std::vector<std::int64_t>{8, 20, 40, 6, 2}));
}

TEST(DevicePlanning, TopGapsPerGroup) {
  std::vector<gap> g{{1, 0, 5}, {0, 10, 12}, {0, 0, 5}, {0, 20, 25}, {1, 7, 8}};
  auto const all = select_top_gaps(g, 0);
  EXPECT_EQ(all, (std::vector<gap>{{0, 0, 5}, {0, 20, 25}, {0, 10, 12}, {1, 0, 5}, {1, 7, 8}}));
  auto const top1 = select_top_gaps(g, 1);
  EXPECT_EQ(top1, (std::vector<gap>{{0, 0, 5}, {1, 0, 5}}));
}

TEST(DevicePlanning, TrailingGaps) {
  interval_union u{{0, 0}, {10, 30}, {20, 40}};
  std::vector<std::int64_t> ws{0, 0, 5}, we{100, 50, 5};
  auto const t = trailing_gaps(u, {ws, we}, 1);
  // group 0: [40,100); group 1: no members → [0,50); group 2: empty window
  EXPECT_EQ(t, (std::vector<gap>{{0, 40, 100}, {1, 0, 50}}));
  EXPECT_EQ(trailing_gaps(u, {ws, we}, 55), (std::vector<gap>{{0, 40, 100}}));
}

TEST(DevicePlanning, OverlappingRowsCoverEveryPossibleOverlap) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    interval_union b;
    for (group_id g = 0; g < 3; ++g) {
      std::int64_t t = static_cast<std::int64_t>(rng() % 5);
      for (int i = 0; i < 6; ++i) {
        t += 1 + static_cast<std::int64_t>(rng() % 5);
        std::int64_t const e = t + 1 + static_cast<std::int64_t>(rng() % 5);
        b.group.push_back(g);
        b.start.push_back(t);
        b.end.push_back(e);
        t = e;
      }
    }
    group_id const g0 = static_cast<group_id>(rng() % 3);
    group_id const g1 = std::max(g0, static_cast<group_id>(rng() % 3));
    std::int64_t const s0 = static_cast<std::int64_t>(rng() % 60);
    std::int64_t const e1 = static_cast<std::int64_t>(rng() % 60) + (g0 == g1 ? s0 + 1 : 0);
    auto const r = overlapping_rows(b, g0, s0, g1, e1);
    for (std::size_t i = 0; i < b.size(); ++i) {
      // can member i overlap an interval lying in [(g0,s0), (g1,e1)) in (group, time) order?
      bool const after_first = b.group[i] > g0 || (b.group[i] == g0 && b.end[i] > s0);
      bool const before_last = b.group[i] < g1 || (b.group[i] == g1 && b.start[i] < e1);
      if (after_first && before_last) {
        EXPECT_TRUE(i >= r.begin && i < r.end) << trial << " " << i;
      }
    }
  }
}

TEST(DevicePlanning, KeyChunksKeepKeysWhole) {
  std::vector<std::uint32_t> keys{5, 1, 1, 7, 5, 5, 9, 9, 9, 9, 9, 2};
  auto const c = plan_key_chunks(keys, 4);
  // counts: 1→2, 2→1, 5→3, 7→1, 9→5
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].first_key, 1u);
  EXPECT_EQ(c[0].last_key, 2u);
  EXPECT_EQ(c[0].rows, 3u);
  EXPECT_EQ(c[1].first_key, 5u);
  EXPECT_EQ(c[1].last_key, 7u);
  EXPECT_EQ(c[1].rows, 4u);
  EXPECT_EQ(c[2].first_key, 9u);
  EXPECT_EQ(c[2].rows, 5u);  // one key larger than a chunk stays alone
}

}  // namespace
}  // namespace tracesweep::cuda_detail
