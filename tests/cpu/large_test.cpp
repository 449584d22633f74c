// SPDX-License-Identifier: Apache-2.0
// 10 M intervals (label "large"): 1 thread and several threads give identical results, equal to
// an independent std::sort + sweep, std::stable_sort and std::map-free per-key scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include <tracesweep/backend.hpp>

namespace {

using namespace tracesweep;

constexpr std::size_t big_n = 10'000'000;

unsigned many_threads() {
  return std::max(4u, std::thread::hardware_concurrency());
}

/// 32 interleaved near-monotone streams (16 groups), durations up to ~20 µs, some much longer.
struct trace_like {
  std::vector<std::int64_t> start, end;
  std::vector<group_id> group;
  explicit trace_like(std::size_t n) {
    std::mt19937_64 rng(2024);
    std::int64_t clock[32];
    for (auto& c : clock) c = (std::int64_t{1} << 60) + static_cast<std::int64_t>(rng() % 1000000);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t const s = rng() % 32;
      clock[s] += static_cast<std::int64_t>(rng() % 3000);
      std::int64_t const len =
          rng() % 1000 == 0 ? static_cast<std::int64_t>(rng() % 50'000'000) : rng() % 20000;
      start.push_back(clock[s]);
      end.push_back(clock[s] + len);
      group.push_back(static_cast<group_id>(s % 16));
    }
  }
  [[nodiscard]] interval_view view() const { return {start, end, group}; }
};

TEST(primitives_large, union_gaps_and_intersection_thread_independent_and_exact) {
  trace_like const t(big_n);
  auto const u1 = make_cpu_backend(1)->union_by_group(t.view());
  auto const un = make_cpu_backend(many_threads())->union_by_group(t.view());
  EXPECT_EQ(u1.group, un.group);
  EXPECT_EQ(u1.start, un.start);
  EXPECT_EQ(u1.end, un.end);

  // Independent: std::sort of (group, start, end) records and a plain sweep.
  std::vector<std::tuple<group_id, std::int64_t, std::int64_t>> rec;
  for (std::size_t i = 0; i < big_n; ++i)
    if (t.end[i] > t.start[i]) rec.emplace_back(t.group[i], t.start[i], t.end[i]);
  std::sort(rec.begin(), rec.end());
  interval_union want;
  for (auto const& [g, s, e] : rec) {
    if (!want.group.empty() && want.group.back() == g && s <= want.end.back()) {
      want.end.back() = std::max(want.end.back(), e);
    } else {
      want.group.push_back(g);
      want.start.push_back(s);
      want.end.push_back(e);
    }
  }
  EXPECT_EQ(u1.group, want.group);
  EXPECT_EQ(u1.start, want.start);
  EXPECT_EQ(u1.end, want.end);

  std::vector<std::int64_t> ws(16, std::int64_t{1} << 60), we(16, std::int64_t{1} << 61);
  EXPECT_EQ(make_cpu_backend(1)->gap_scan(u1, {ws, we}, 1000, 5),
            make_cpu_backend(many_threads())->gap_scan(un, {ws, we}, 1000, 5));
  auto const i1 = make_cpu_backend(1)->intersection_by_group(u1, un, 16);
  EXPECT_EQ(i1, busy_per_group(u1, 16));
}

TEST(primitives_large, sort_pairs_and_stats_thread_independent_and_exact) {
  trace_like const t(big_n);
  std::vector<std::uint64_t> keys(big_n);
  std::vector<std::uint32_t> vals(big_n);
  for (std::size_t i = 0; i < big_n; ++i) {
    keys[i] = static_cast<std::uint64_t>(t.start[i]);
    vals[i] = static_cast<std::uint32_t>(i);
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> want(big_n);
  for (std::size_t i = 0; i < big_n; ++i) want[i] = {keys[i], vals[i]};
  std::stable_sort(want.begin(), want.end(),
                   [](auto const& a, auto const& b) { return a.first < b.first; });
  auto k1 = keys;
  auto v1 = vals;
  make_cpu_backend(1)->sort_pairs(k1, v1);
  make_cpu_backend(many_threads())->sort_pairs(keys, vals);
  EXPECT_EQ(k1, keys);
  EXPECT_EQ(v1, vals);
  for (std::size_t i = 0; i < big_n; ++i) {
    ASSERT_EQ(keys[i], want[i].first) << i;
    ASSERT_EQ(vals[i], want[i].second) << i;
  }

  std::vector<std::uint32_t> names(big_n);
  std::vector<std::int64_t> dur(big_n);
  std::mt19937_64 rng(5);
  for (std::size_t i = 0; i < big_n; ++i) {
    names[i] = static_cast<std::uint32_t>(rng() % 3 ? rng() % 8 : rng() % 5000);
    dur[i] = t.end[i] - t.start[i];
  }
  std::vector<double> const qs{0.5, 0.99};
  auto const s1 = make_cpu_backend(1)->segmented_stats(names, dur, qs);
  auto const sn = make_cpu_backend(many_threads())->segmented_stats(names, dur, qs);
  EXPECT_EQ(s1, sn);
  // Independent: std::sort of (name, duration) pairs, then a scan per run.
  std::vector<std::pair<std::uint32_t, std::int64_t>> p(big_n);
  for (std::size_t i = 0; i < big_n; ++i) p[i] = {names[i], dur[i]};
  std::sort(p.begin(), p.end());
  std::size_t g = 0;
  for (std::size_t b = 0; b < big_n; ++g) {
    std::size_t e = b;
    int128 sum = 0;
    while (e < big_n && p[e].first == p[b].first) sum += p[e++].second;
    ASSERT_LT(g, s1.size());
    EXPECT_EQ(s1[g].key, p[b].first);
    EXPECT_EQ(s1[g].count, e - b);
    EXPECT_TRUE(s1[g].sum == sum);
    EXPECT_EQ(s1[g].min, p[b].second);
    EXPECT_EQ(s1[g].max, p[e - 1].second);
    EXPECT_EQ(s1[g].median_lo, p[b + (e - b - 1) / 2].second);
    EXPECT_EQ(s1[g].median_hi, p[b + (e - b) / 2].second);
    b = e;
  }
  EXPECT_EQ(g, s1.size());
}

}  // namespace
