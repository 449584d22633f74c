// SPDX-License-Identifier: Apache-2.0
// Host helpers over interval unions: the union builder (member by member and whole unions
// appended), merge_unions and union_class against a brute-force coverage oracle (which
// nanoseconds of which group are covered), on random small unions.
#include <gtest/gtest.h>

#include <tracesweep/intervals.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace tracesweep {
namespace intervals_test {

using covered = std::set<std::pair<group_id, std::int64_t>>;  // (group, ns) covered

/// A valid union: per group, disjoint non-touching members in start order.
interval_union random_union(std::mt19937& rng, group_id groups) {
  interval_union u;
  for (group_id g = 0; g < groups; ++g) {
    std::int64_t at = std::uniform_int_distribution<std::int64_t>(-5, 5)(rng);
    int const members = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int m = 0; m < members; ++m) {
      at += std::uniform_int_distribution<std::int64_t>(1, 4)(rng);  // > 0: never touching
      auto const len = std::uniform_int_distribution<std::int64_t>(1, 5)(rng);
      u.group.push_back(g), u.start.push_back(at), u.end.push_back(at + len);
      at += len;
    }
  }
  return u;
}

covered coverage(interval_union const& u) {
  covered c;
  for (std::size_t i = 0; i < u.size(); ++i)
    for (auto t = u.start[i]; t < u.end[i]; ++t) c.insert({u.group[i], t});
  return c;
}

/// A union's own invariants: (group, start) order, members disjoint and not touching.
void expect_valid(interval_union const& u) {
  for (std::size_t i = 0; i < u.size(); ++i) {
    EXPECT_LT(u.start[i], u.end[i]) << i;
    if (i == 0) continue;
    EXPECT_GE(u.group[i], u.group[i - 1]) << i;
    if (u.group[i] == u.group[i - 1]) {
      EXPECT_GT(u.start[i], u.end[i - 1]) << i;
    }
  }
}

// Members in (group, start) order, overlapping, touching or apart: the builder covers what they
// cover and leaves a union (touching members merged).
TEST(UnionBuilder, CoversWhatItsMembersCoverAndStaysAUnion) {
  std::mt19937 rng(3);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::tuple<group_id, std::int64_t, std::int64_t>> members;
    for (int k = 0; k < 12; ++k) {
      auto const s = std::uniform_int_distribution<std::int64_t>(0, 30)(rng);
      members.emplace_back(std::uniform_int_distribution<group_id>(0, 2)(rng), s,
                           s + std::uniform_int_distribution<std::int64_t>(1, 6)(rng));
    }
    std::sort(members.begin(), members.end());
    union_builder b(members.size()), runs;
    interval_union raw;
    for (auto const& [g, s, e] : members) {
      b.add(g, s, e);
      raw.group.push_back(g), raw.start.push_back(s), raw.end.push_back(e);
    }
    auto const u = b.finish();
    expect_valid(u);
    EXPECT_EQ(coverage(u), coverage(raw));
    // The same members in runs through add_all (members, then runs of any length).
    auto const get = [&](std::size_t i) { return members[i]; };
    for (std::size_t at = 0; at < members.size();) {
      auto const len = std::uniform_int_distribution<std::size_t>(1, 4)(rng);
      auto const to = std::min(members.size(), at + len);
      if (len == 1)
        runs.add(std::get<0>(members[at]), std::get<1>(members[at]), std::get<2>(members[at]));
      else
        runs.add_all(get, at, to);
      at = to;
    }
    auto const r = runs.finish();
    EXPECT_EQ(r.group, u.group);
    EXPECT_EQ(r.start, u.start);
    EXPECT_EQ(r.end, u.end);
  }
}

// A union cut in consecutive parts and appended part by part is the union again: members either
// side of a cut that touch or overlap join.
TEST(UnionBuilder, AppendingTheChunksOfAUnionGivesItBack) {
  std::mt19937 rng(5);
  for (int round = 0; round < 300; ++round) {
    auto const whole = random_union(rng, 3);
    std::vector<std::size_t> cuts{0, whole.size()};
    for (int k = 0; k < 3; ++k)
      cuts.push_back(std::uniform_int_distribution<std::size_t>(0, whole.size())(rng));
    std::sort(cuts.begin(), cuts.end());
    union_builder b;
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      interval_union part;
      for (auto i = cuts[c]; i < cuts[c + 1]; ++i) {
        // Stretch each part's last member to the next one's start: they touch across the cut.
        bool const stretch =
            i + 1 == cuts[c + 1] && i + 1 < whole.size() && whole.group[i + 1] == whole.group[i];
        part.group.push_back(whole.group[i]), part.start.push_back(whole.start[i]);
        part.end.push_back(stretch ? whole.start[i + 1] : whole.end[i]);
      }
      b.append(part);
    }
    auto const u = b.finish();
    expect_valid(u);
    interval_union stretched = whole;
    for (std::size_t c = 1; c + 1 < cuts.size(); ++c) {
      auto const i = cuts[c];
      if (i > 0 && i < whole.size() && whole.group[i] == whole.group[i - 1])
        stretched.end[i - 1] = whole.start[i];
    }
    EXPECT_EQ(coverage(u), coverage(stretched));
  }
}

TEST(MergeUnions, CoversWhatEitherCoversAndStaysAUnion) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    auto const groups = static_cast<group_id>(1 + round % 4);
    auto const a = random_union(rng, groups), b = random_union(rng, groups);
    auto const m = merge_unions(a, b);
    expect_valid(m);
    auto want = coverage(a);
    for (auto const& p : coverage(b)) want.insert(p);
    EXPECT_EQ(coverage(m), want) << round;
  }
}

TEST(MergeUnions, TouchingMembersJoin) {
  interval_union a, b;
  a.group = {0, 1}, a.start = {0, 0}, a.end = {5, 5};
  b.group = {0, 1}, b.start = {5, 6}, b.end = {9, 9};
  auto const m = merge_unions(a, b);
  EXPECT_EQ(m.group, (std::vector<group_id>{0, 1, 1}));
  EXPECT_EQ(m.start, (std::vector<std::int64_t>{0, 0, 6}));
  EXPECT_EQ(m.end, (std::vector<std::int64_t>{9, 5, 9}));
}

TEST(UnionClass, TakesOneClassAndRegroups) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    group_id const classes = 4, devices = 3;
    auto const u = random_union(rng, devices * classes);
    for (group_id which = 0; which < classes; ++which) {
      auto const c = union_class(u, classes, which);
      expect_valid(c);
      covered want;
      for (auto const& [g, t] : coverage(u))
        if (g % classes == which) want.insert({g / classes, t});
      EXPECT_EQ(coverage(c), want) << round << " class " << which;
    }
  }
}

}  // namespace intervals_test

}  // namespace tracesweep
