// SPDX-License-Identifier: Apache-2.0
// union_in_row_order: items of interleaved groups, each group's in start order, in chunks on
// several workers (members touching across the chunks' seams), some items not taken, against the
// coverage oracle; nullopt when a group's item starts before its last, inside a chunk or across
// a seam.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <tracesweep/row_order_union.hpp>

#include "oracles.hpp"

namespace row_order_union_test {

using namespace tracesweep;
using test::intervals;

/// Items of `groups` groups in start order (a start per item, non-decreasing), lengths from
/// inverted to long; every fifth item is not taken.
struct items {
  intervals all;
  std::vector<bool> taken;
  [[nodiscard]] auto item() const {
    return [this](unsigned, std::size_t i) {
      return std::tuple{static_cast<bool>(taken[i]), all.group[i], all.start[i], all.end[i]};
    };
  }
  [[nodiscard]] intervals taken_ones() const {
    intervals out;
    for (std::size_t i = 0; i < taken.size(); ++i)
      if (taken[i]) out.add(all.group[i], all.start[i], all.end[i]);
    return out;
  }
};

items random_items(std::mt19937_64& rng, std::size_t n, std::size_t groups) {
  items out;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += static_cast<std::int64_t>(rng() % 4);
    auto const shape = rng() % 8;
    std::int64_t const len = shape == 0   ? -static_cast<std::int64_t>(rng() % 3)
                             : shape == 1 ? 40
                                          : static_cast<std::int64_t>(rng() % 6);
    out.all.add(static_cast<group_id>(rng() % groups), t, t + len);
    out.taken.push_back(i % 5 != 4);
  }
  return out;
}

void expect_union(std::optional<interval_union> const& got, interval_union const& want,
                  std::uint64_t seed) {
  ASSERT_TRUE(got.has_value()) << "seed " << seed;
  EXPECT_EQ(got->group, want.group) << "seed " << seed;
  EXPECT_EQ(got->start, want.start) << "seed " << seed;
  EXPECT_EQ(got->end, want.end) << "seed " << seed;
}

TEST(row_order_union, interleaved_groups_in_start_order_against_the_oracle) {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const groups = 1 + rng() % 6, n = rng() % 400;
    auto const in = random_items(rng, n, groups);
    auto const want = test::oracle_union(in.taken_ones());
    for (unsigned workers : {1u, 2u, 3u, 7u})
      expect_union(union_in_row_order(in.item(), n, groups, workers), want, seed);
  }
}

TEST(row_order_union, a_group_out_of_start_order_gives_nothing) {
  std::mt19937_64 rng(5);
  auto in = random_items(rng, 200, 3);
  // Inside the second half: the sweep of one chunk, or of the second of two, finds it.
  auto late = in;
  late.all.start[150] = late.all.start[149] - 1, late.all.end[150] = late.all.start[150] + 2;
  late.all.group[150] = late.all.group[149], late.taken[150] = late.taken[149] = true;
  late.all.end[149] = late.all.start[149] + 2;  // not empty: an empty item is left out
  for (unsigned workers : {1u, 2u})
    EXPECT_FALSE(union_in_row_order(late.item(), 200, 3, workers).has_value()) << workers;
  // Only across the seam of two chunks (each in order on its own): the seams find it.
  auto seam = in;
  seam.all.group[99] = seam.all.group[100] = 0, seam.taken[99] = seam.taken[100] = true;
  seam.all.start[100] = seam.all.start[99] - 1, seam.all.end[100] = seam.all.start[100] + 1;
  seam.all.end[99] = seam.all.start[99] + 2;
  for (std::size_t i = 101; i < 200; ++i)  // no other item of group 0 after it in chunk 2
    if (seam.all.group[i] == 0) seam.taken[i] = false;
  for (std::size_t i = 0; i < 99; ++i)  // nor before it in chunk 1
    if (seam.all.group[i] == 0) seam.taken[i] = false;
  EXPECT_FALSE(union_in_row_order(seam.item(), 200, 3, 2).has_value());
  // An untaken item out of order changes nothing.
  auto untaken = late;
  untaken.taken[150] = false;
  auto const want = test::oracle_union(untaken.taken_ones());
  expect_union(union_in_row_order(untaken.item(), 200, 3, 2), want, 0);
}

TEST(row_order_union, items_at_the_ends_of_the_clock) {
  // Starts at the least and the greatest int64: no start stands for "none yet" in a group.
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  items in;
  in.all.add(0, lo, lo + 5), in.all.add(1, lo, lo + 1), in.all.add(0, lo + 3, lo + 10);
  in.all.add(1, lo + 2, lo + 4), in.all.add(0, lo + 20, lo + 30), in.all.add(1, hi - 9, hi);
  in.all.add(0, hi - 5, hi), in.all.add(0, hi - 1, hi);
  in.taken.assign(in.all.start.size(), true);
  auto const want = test::oracle_union(in.taken_ones());
  ASSERT_EQ(want.size(), 6u);
  for (unsigned workers : {1u, 2u, 3u})
    expect_union(union_in_row_order(in.item(), in.taken.size(), 2, workers), want, workers);
}

}  // namespace row_order_union_test
