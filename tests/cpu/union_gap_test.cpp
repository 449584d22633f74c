// SPDX-License-Identifier: Apache-2.0
// union_by_group, gap_scan, intersection_by_group and busy_per_group against per-nanosecond
// coverage oracles and a coordinate-compression union, over many random seeds, plus the same
// instances shifted next to 2^62 and adversarial cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <tracesweep/backend.hpp>

#include "oracles.hpp"

namespace union_gap_test {

using namespace tracesweep;
using test::intervals;

interval_union union_from_coverage(std::vector<std::vector<bool>> const& cov) {
  interval_union u;
  for (std::size_t g = 0; g < cov.size(); ++g) {
    auto const h = static_cast<std::int64_t>(cov[g].size());
    for (std::int64_t t = 0; t < h;) {
      if (!cov[g][t]) {
        ++t;
        continue;
      }
      std::int64_t e = t;
      while (e < h && cov[g][e]) ++e;
      u.group.push_back(static_cast<group_id>(g));
      u.start.push_back(t);
      u.end.push_back(e);
      t = e;
    }
  }
  return u;
}

std::vector<gap> gaps_from_coverage(std::vector<std::vector<bool>> const& cov,
                                    std::vector<std::int64_t> const& ws,
                                    std::vector<std::int64_t> const& we, std::int64_t min_gap,
                                    std::size_t top) {
  std::vector<gap> out;
  for (std::size_t g = 0; g < cov.size(); ++g) {
    std::vector<gap> holes;
    for (std::int64_t t = ws[g]; t < we[g];) {
      if (cov[g][t]) {
        ++t;
        continue;
      }
      std::int64_t e = t;
      while (e < we[g] && !cov[g][e]) ++e;
      if (e - t >= min_gap) holes.push_back({static_cast<group_id>(g), t, e});
      t = e;
    }
    std::sort(holes.begin(), holes.end(), [](gap const& a, gap const& b) {
      return a.duration() != b.duration() ? a.duration() > b.duration() : a.start < b.start;
    });
    if (top != 0 && holes.size() > top) holes.resize(top);
    out.insert(out.end(), holes.begin(), holes.end());
  }
  return out;
}

/// Shifts group g by offsets[g] (intervals, unions and gaps alike).
intervals shifted(intervals in, std::vector<std::int64_t> const& off) {
  for (std::size_t i = 0; i < in.start.size(); ++i) {
    in.start[i] += off[in.group[i]];
    in.end[i] += off[in.group[i]];
  }
  return in;
}
interval_union shifted(interval_union u, std::vector<std::int64_t> const& off) {
  for (std::size_t i = 0; i < u.size(); ++i) {
    u.start[i] += off[u.group[i]];
    u.end[i] += off[u.group[i]];
  }
  return u;
}

void expect_same_union(interval_union const& got, interval_union const& want, std::uint64_t seed) {
  ASSERT_EQ(got.group, want.group) << "seed " << seed;
  ASSERT_EQ(got.start, want.start) << "seed " << seed;
  ASSERT_EQ(got.end, want.end) << "seed " << seed;
}

TEST(union_gap, random_seeds_against_coverage_oracles) {
  for (std::uint64_t seed = 0; seed < 1500; ++seed) {
    std::mt19937_64 rng(seed);
    bool const big = seed % 150 == 0;
    std::size_t const n = big ? 10000 : rng() % 60;
    std::size_t const groups = 1 + rng() % 6;
    std::int64_t const horizon = big ? 200000 : 1 + static_cast<std::int64_t>(rng() % 300);
    intervals const a = test::random_intervals(rng, n, groups, horizon);
    intervals const b = test::random_intervals(rng, n / 2 + 1, groups, horizon);
    auto const cov_a = test::coverage(a, groups, horizon);
    auto const cov_b = test::coverage(b, groups, horizon);

    auto be = make_cpu_backend(1 + seed % 4);
    interval_union const ua = be->union_by_group(a.view());
    interval_union const ub = be->union_by_group(b.view());
    expect_same_union(ua, union_from_coverage(cov_a), seed);
    expect_same_union(ub, union_from_coverage(cov_b), seed);
    if (!big) expect_same_union(ua, test::oracle_union(a), seed);

    std::vector<std::int64_t> busy(groups, 0), inter(groups, 0);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::int64_t t = 0; t < horizon; ++t) {
        busy[g] += cov_a[g][t];
        inter[g] += cov_a[g][t] && cov_b[g][t];
      }
    ASSERT_EQ(busy_per_group(ua, groups), busy) << "seed " << seed;
    ASSERT_EQ(be->intersection_by_group(ua, ub, groups), inter) << "seed " << seed;
    ASSERT_EQ(be->intersection_by_group(ub, ua, groups), inter) << "seed " << seed;

    std::vector<std::int64_t> ws(groups), we(groups);
    for (std::size_t g = 0; g < groups; ++g) {
      ws[g] = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(horizon));
      we[g] = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(horizon + 1));
      if (g % 2 == 0) std::swap(ws[g], we[g]);
      if (seed % 7 == 0) ws[g] = 0, we[g] = horizon;
      if (we[g] < ws[g] && g % 3 != 0) std::swap(ws[g], we[g]);  // some stay empty/inverted
    }
    std::int64_t const min_gap = static_cast<std::int64_t>(rng() % 5) - 1;
    std::size_t const top = rng() % 4;
    std::vector<gap> const want_gaps = gaps_from_coverage(cov_a, ws, we, min_gap, top);
    ASSERT_EQ(be->gap_scan(ua, {ws, we}, min_gap, top), want_gaps) << "seed " << seed;

    // The same instance with each group moved next to 2^62 (group offsets apart by 2^59, so
    // several groups force the wide two-pass sort).
    std::vector<std::int64_t> off(groups);
    for (std::size_t g = 0; g < groups; ++g)
      off[g] = (std::int64_t{1} << 62) - static_cast<std::int64_t>(g) * (std::int64_t{1} << 59) +
               static_cast<std::int64_t>(seed);
    intervals const far_a = shifted(a, off);
    intervals const far_b = shifted(b, off);
    interval_union const far_ua = be->union_by_group(far_a.view());
    expect_same_union(far_ua, shifted(ua, off), seed);
    interval_union const far_ub = be->union_by_group(far_b.view());
    ASSERT_EQ(be->intersection_by_group(far_ua, far_ub, groups), inter) << "seed " << seed;
    std::vector<std::int64_t> fws(groups), fwe(groups);
    for (std::size_t g = 0; g < groups; ++g) fws[g] = ws[g] + off[g], fwe[g] = we[g] + off[g];
    std::vector<gap> far_want = want_gaps;
    for (auto& x : far_want) x.start += off[x.group], x.end += off[x.group];
    ASSERT_EQ(be->gap_scan(far_ua, {fws, fwe}, min_gap, top), far_want) << "seed " << seed;
  }
}

TEST(union_gap, rows_of_columns_and_rows_in_order_against_the_oracle) {
  // union_of_rows gathers row k of the columns as it packs the keys, and skips the sort when
  // the keys come in (group, start) order: both against the oracle of the gathered intervals.
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const groups = 1 + rng() % 5;
    std::int64_t const horizon = 1 + static_cast<std::int64_t>(rng() % 200);
    intervals const columns = test::random_intervals(rng, rng() % 80, groups, horizon);
    auto be = make_cpu_backend(1 + seed % 3);
    // Some rows of the columns, in any order and with repeats, each with a group of its own.
    std::vector<std::size_t> rows;
    std::vector<group_id> group;
    intervals gathered;
    for (std::size_t k = 0; !columns.start.empty() && k < columns.start.size(); ++k) {
      auto const r = static_cast<std::size_t>(rng() % columns.start.size());
      rows.push_back(r);
      group.push_back(static_cast<group_id>(rng() % groups));
      gathered.add(group.back(), columns.start[r], columns.end[r]);
    }
    auto const want = test::oracle_union(gathered);
    expect_same_union(be->union_of_rows({columns.start, columns.end, rows, group}), want, seed);
    // The same rows listed in (group, start) order: no sort.
    std::vector<std::size_t> order(rows.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(group[a], columns.start[rows[a]]) <
             std::pair(group[b], columns.start[rows[b]]);
    });
    std::vector<std::size_t> sorted_rows;
    std::vector<group_id> sorted_group;
    for (auto const k : order) sorted_rows.push_back(rows[k]), sorted_group.push_back(group[k]);
    expect_same_union(be->union_of_rows({columns.start, columns.end, sorted_rows, sorted_group}),
                      want, seed);
    intervals in_order;
    for (auto const k : order) in_order.add(group[k], columns.start[rows[k]], columns.end[rows[k]]);
    expect_same_union(be->union_by_group(in_order.view()), want, seed);
  }
}

/// Intervals listed group by group, lane by lane (a lane: one stream's rows), each lane in
/// start order: ascending runs of (group, start), as the device activity lists a trace's rows.
/// Some intervals are empty or inverted; lanes overlap one another.
intervals stream_by_stream(std::mt19937_64& rng, std::size_t groups, std::size_t lanes,
                           std::size_t per_lane, std::int64_t horizon, std::uint64_t step = 30) {
  intervals out;
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t l = 0; l < lanes; ++l) {
      std::int64_t t = static_cast<std::int64_t>(rng() % 50);
      for (std::size_t k = 0; k < per_lane && t < horizon; ++k) {
        auto const shape = rng() % 10;
        std::int64_t const len = shape == 0   ? 0
                                 : shape == 1 ? -static_cast<std::int64_t>(rng() % 5)
                                              : static_cast<std::int64_t>(rng() % 40);
        out.add(static_cast<group_id>(g), t, t + len);
        t += static_cast<std::int64_t>(rng() % step);  // may repeat a start
      }
    }
  return out;
}

/// The same intervals in a random order.
intervals shuffled(intervals const& in, std::mt19937_64& rng) {
  std::vector<std::size_t> perm(in.start.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  intervals out;
  for (auto const i : perm) out.add(in.group[i], in.start[i], in.end[i]);
  return out;
}

/// union_of_rows of `in` as rows of columns that hold it in reverse (one group in the columns;
/// the rows list them in `in`'s order, with its groups) against `want`.
void expect_rows_of_reversed_columns(backend& be, intervals const& in, interval_union const& want,
                                     std::uint64_t seed) {
  intervals columns;
  std::vector<std::size_t> rows;
  for (std::size_t i = in.start.size(); i-- > 0;) columns.add(0, in.start[i], in.end[i]);
  for (std::size_t k = 0; k < in.start.size(); ++k) rows.push_back(in.start.size() - 1 - k);
  expect_same_union(be.union_of_rows({columns.start, columns.end, rows, in.group}), want, seed);
}

TEST(union_gap, streams_listed_one_after_another_against_the_oracle) {
  // Keys that come as a few ascending runs are merged, not sorted: the rows as they come, and
  // as rows of columns listed in that order (the columns themselves in another).
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const groups = 1 + rng() % 4, lanes = 1 + rng() % 5;
    auto const in = stream_by_stream(rng, groups, lanes, 8 + rng() % 40, 2000);
    auto const want = test::oracle_union(in);
    auto be = make_cpu_backend(1 + seed % 3);
    expect_same_union(be->union_by_group(in.view()), want, seed);
    expect_rows_of_reversed_columns(*be, in, want, seed);
  }
}

TEST(union_gap, merged_runs_equal_the_sorted_union_on_many_threads) {
  // Enough rows for several threads, each merging the runs' part of one key range; against the
  // union of the same intervals shuffled (too many runs: sorted).
  std::mt19937_64 rng(7);
  auto const in = stream_by_stream(rng, 3, 7, 40000, std::int64_t{1} << 40, 1000);
  interval_union const want = make_cpu_backend(1)->union_by_group(shuffled(in, rng).view());
  ASSERT_GT(want.size(), 100000u);
  for (unsigned threads : {1u, 2u, 3u, 4u})
    expect_same_union(make_cpu_backend(threads)->union_by_group(in.view()), want, threads);
}

/// The intervals in start order whatever their group (ties as they were): the rows of a table in
/// start order, each group's (device's, thread's) interleaved with the others' yet in order.
intervals by_start(intervals const& in) {
  std::vector<std::size_t> order(in.start.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return in.start[a] < in.start[b]; });
  intervals out;
  for (auto const i : order) out.add(in.group[i], in.start[i], in.end[i]);
  return out;
}

TEST(union_gap, groups_interleaved_each_in_start_order_against_the_oracle) {
  // Too many runs of (group, start) to merge, each group's in order: swept a member open per
  // group, as intervals and as rows of columns in another order.
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const groups = 2 + rng() % 5, lanes = 1 + rng() % 4;
    auto const in = by_start(stream_by_stream(rng, groups, lanes, 8 + rng() % 40, 2000));
    auto const want = test::oracle_union(in);
    auto be = make_cpu_backend(1 + seed % 3);
    expect_same_union(be->union_by_group(in.view()), want, seed);
    expect_rows_of_reversed_columns(*be, in, want, seed);
  }
}

TEST(union_gap, interleaved_groups_in_start_order_on_many_threads_equal_the_sorted_union) {
  // Chunks on several threads, members overlapping across the chunks' seams (intervals longer
  // than the steps between starts); against the union of the same intervals shuffled (sorted).
  std::mt19937_64 rng(11);
  auto const in = by_start(stream_by_stream(rng, 5, 3, 60000, std::int64_t{1} << 40, 30));
  interval_union const want = make_cpu_backend(1)->union_by_group(shuffled(in, rng).view());
  ASSERT_GT(want.size(), 10000u);
  for (unsigned threads : {1u, 2u, 3u, 4u})
    expect_same_union(make_cpu_backend(threads)->union_by_group(in.view()), want, threads);
}

/// union_of_row_groups of `in` as a group column over columns that hold `in` with rows of no
/// group mixed in (after every third row, covering the others' times), against `want`.
void expect_row_groups(backend& be, intervals const& in, interval_union const& want,
                       std::uint64_t seed) {
  std::vector<std::int64_t> start, end;
  std::vector<group_id> group;
  std::size_t groups = 0;
  for (std::size_t i = 0; i < in.start.size(); ++i) {
    start.push_back(in.start[i]), end.push_back(in.end[i]), group.push_back(in.group[i]);
    if (i % 3 == 0)
      start.push_back(-5000), end.push_back(9000), group.push_back(row_groups::no_group);
    groups = std::max<std::size_t>(groups, in.group[i] + std::size_t{1});
  }
  expect_same_union(be.union_of_row_groups({start, end, group, groups}), want, seed);
  // More groups than rows: the rows are listed, not swept a member open per group.
  expect_same_union(be.union_of_row_groups({start, end, group, 2 * group.size() + 1}), want, seed);
}

TEST(union_gap, row_groups_in_start_order_or_not_against_the_oracle) {
  // A group column over the rows: each group's rows in start order, interleaved (one sweep), and
  // the same rows shuffled (listed and sorted), on 1 to 3 threads.
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const groups = 1 + rng() % 5, lanes = 1 + rng() % 4;
    auto const in = by_start(stream_by_stream(rng, groups, lanes, 1 + rng() % 40, 2000));
    auto const want = test::oracle_union(in);
    auto be = make_cpu_backend(1 + seed % 3);
    expect_row_groups(*be, in, want, seed);
    expect_row_groups(*be, shuffled(in, rng), want, seed);
  }
}

TEST(union_gap, row_groups_in_start_order_on_many_threads_equal_the_sorted_union) {
  std::mt19937_64 rng(12);
  auto const in = by_start(stream_by_stream(rng, 5, 3, 60000, std::int64_t{1} << 40, 30));
  interval_union const want = make_cpu_backend(1)->union_by_group(shuffled(in, rng).view());
  ASSERT_GT(want.size(), 10000u);
  for (unsigned threads : {1u, 2u, 3u, 4u})
    expect_row_groups(*make_cpu_backend(threads), in, want, threads);
}

TEST(union_gap, row_groups_check_their_columns) {
  auto be = make_cpu_backend(1);
  std::vector<std::int64_t> const s{0, 10}, e{5, 20};
  std::vector<group_id> const g{0, 1}, one{0};
  EXPECT_THROW((void)be->union_of_row_groups({s, e, g, 1}), std::invalid_argument);  // 1 ≥ 1
  EXPECT_THROW((void)be->union_of_row_groups({s, e, one, 1}), std::invalid_argument);
  std::vector<group_id> const none{row_groups::no_group, 0};
  auto const u = be->union_of_row_groups({s, e, none, 1});
  EXPECT_EQ(u.start, std::vector<std::int64_t>{10});
  EXPECT_EQ(u.end, std::vector<std::int64_t>{20});
}

TEST(union_gap, runs_among_the_non_empty_intervals_when_an_empty_one_is_far_away) {
  // An empty interval far before the others widens the keys of all beyond 64 bits with the
  // groups: the non-empty ones are gathered, and their runs merged, not sorted.
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    std::mt19937_64 rng(seed);
    auto in = stream_by_stream(rng, 3, 4, 30, 3000);
    for (auto& g : in.group) g = g << 20;  // 23 bits of groups
    in.add(1 << 20, -(std::int64_t{1} << 61), -(std::int64_t{1} << 61));
    auto const want = test::oracle_union(in);
    expect_same_union(make_cpu_backend(1 + seed % 2)->union_by_group(in.view()), want, seed);
  }
}

TEST(union_gap, multithreaded_sweep_equals_single_thread) {
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    std::mt19937_64 rng(seed);
    intervals const a = test::random_intervals(rng, 600000, 1 + seed, 3000000);
    interval_union const one = make_cpu_backend(1)->union_by_group(a.view());
    for (unsigned threads : {2u, 3u, 4u}) {
      expect_same_union(make_cpu_backend(threads)->union_by_group(a.view()), one, seed);
    }
    // One long interval spanning many chunks, which the chunk stitching must merge.
    intervals b = a;
    b.add(0, 0, 3000000);
    interval_union const ub = make_cpu_backend(4)->union_by_group(b.view());
    EXPECT_EQ(ub.group[0], 0u);
    EXPECT_EQ(ub.start[0], 0);
    EXPECT_EQ(ub.end[0], 3000000);
    expect_same_union(ub, make_cpu_backend(1)->union_by_group(b.view()), seed);
  }
}

TEST(union_gap, adversarial_cases) {
  auto be = make_cpu_backend(2);
  constexpr std::int64_t near62 = std::int64_t{1} << 62;
  constexpr std::int64_t ten_s = 10'000'000'000;

  intervals empty;
  EXPECT_EQ(be->union_by_group(empty.view()).size(), 0u);

  intervals one;
  one.add(3, near62, near62 + 11 * ten_s);  // duration above 10 s, near 2^62
  interval_union const u1 = be->union_by_group(one.view());
  ASSERT_EQ(u1.size(), 1u);
  EXPECT_EQ(u1.group[0], 3u);
  EXPECT_EQ(u1.end[0] - u1.start[0], 11 * ten_s);
  EXPECT_EQ(busy_per_group(u1, 4), (std::vector<std::int64_t>{0, 0, 0, 11 * ten_s}));

  intervals zero;  // only zero-length and inverted intervals: nothing
  zero.add(0, 5, 5);
  zero.add(0, 9, 3);
  EXPECT_EQ(be->union_by_group(zero.view()).size(), 0u);

  intervals mixed;  // identical, nested, touching, and a zero-length one inside the gap
  mixed.add(0, 100, 200);
  mixed.add(0, 100, 200);
  mixed.add(0, 120, 150);
  mixed.add(0, 200, 250);
  mixed.add(0, 300, 300);  // does not split the gap [250, 400)
  mixed.add(0, 400, 500);
  interval_union const um = be->union_by_group(mixed.view());
  EXPECT_EQ(um.start, (std::vector<std::int64_t>{100, 400}));
  EXPECT_EQ(um.end, (std::vector<std::int64_t>{250, 500}));
  std::vector<std::int64_t> ws{0}, we{1000};
  EXPECT_EQ(be->gap_scan(um, {ws, we}, 0, 0),
            (std::vector<gap>{{0, 500, 1000}, {0, 250, 400}, {0, 0, 100}}));
  EXPECT_EQ(be->gap_scan(um, {ws, we}, 150, 0), (std::vector<gap>{{0, 500, 1000}, {0, 250, 400}}));
  EXPECT_EQ(be->gap_scan(um, {ws, we}, 0, 1), (std::vector<gap>{{0, 500, 1000}}));

  // A group with a window but no intervals is one gap; a group without a window is an error.
  std::vector<std::int64_t> ws2{0, -ten_s}, we2{1000, ten_s};
  EXPECT_EQ(be->gap_scan(um, {ws2, we2}, 0, 1),
            (std::vector<gap>{{0, 500, 1000}, {1, -ten_s, ten_s}}));
  interval_union const u3 = be->union_by_group(one.view());
  EXPECT_THROW((void)be->gap_scan(u3, {ws2, we2}, 0, 0), std::invalid_argument);
  EXPECT_THROW((void)busy_per_group(u3, 2), std::invalid_argument);
  EXPECT_THROW((void)be->intersection_by_group(u3, u3, 3), std::invalid_argument);

  // Extreme coordinates, both signs, in one group and in many.
  intervals wide;
  wide.add(0, std::numeric_limits<std::int64_t>::min(),
           std::numeric_limits<std::int64_t>::min() + 5);
  wide.add(0, std::numeric_limits<std::int64_t>::max() - 5,
           std::numeric_limits<std::int64_t>::max());
  wide.add(70000, -1, 1);
  wide.add(70000, 1, 2);
  expect_same_union(be->union_by_group(wide.view()), test::oracle_union(wide), 0);
}

}  // namespace union_gap_test
