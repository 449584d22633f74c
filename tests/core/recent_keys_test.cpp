// SPDX-License-Identifier: Apache-2.0
// recent_keys: a key put is found with its value until another key of its slot is put; a key
// never put, or pushed out, is not found (never another key's value). distinct_keys and
// distinct_integers against a set, at several thread counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include <tracesweep/recent_keys.hpp>

namespace recent_keys_test {

using namespace tracesweep;

TEST(recent_keys, finds_what_was_put_and_never_another_keys_value) {
  recent_integers<std::int64_t, std::int64_t, 8> memo;
  EXPECT_EQ(memo.find(0), nullptr);  // an empty slot holds no key, not key 0
  std::map<std::int64_t, std::int64_t> truth;
  std::mt19937_64 rng(3);
  std::size_t found = 0;
  for (int step = 0; step < 20000; ++step) {
    auto const key = static_cast<std::int64_t>(rng() % 40) - 20;
    if (auto const* v = memo.find(key)) {
      ASSERT_EQ(*v, truth.at(key)) << key;
      ++found;
    } else {
      truth[key] = static_cast<std::int64_t>(rng());
      memo.put(key, truth[key]);
      ASSERT_NE(memo.find(key), nullptr);
      EXPECT_EQ(*memo.find(key), truth[key]);
    }
  }
  EXPECT_GT(found, 0u);
  EXPECT_LT(found, 20000u);  // 40 keys in 8 slots: some pushed out
}

TEST(recent_keys, a_few_interleaved_keys_stay) {
  // Four ranks interleaved row by row (an nsys table in start order): after the first sight of
  // each, all are found.
  recent_integers<std::int32_t, int> memo;
  for (std::int32_t r : {1000, 1001, 1002, 1003}) memo.put(r, r - 1000);
  for (int row = 0; row < 100; ++row) {
    auto const rank = 1000 + row % 4;
    ASSERT_NE(memo.find(rank), nullptr);
    EXPECT_EQ(*memo.find(rank), rank - 1000);
  }
}

/// A key of two parts, as the session's GPUs (owner, device).
struct pair_key {
  std::uint32_t owner = 0;
  std::int32_t device = 0;
  friend auto operator<=>(pair_key const&, pair_key const&) = default;
};
struct pair_bits {
  std::uint64_t operator()(pair_key const& k) const noexcept {
    return std::uint64_t{k.owner} << 32 ^ static_cast<std::uint32_t>(k.device);
  }
};

TEST(distinct_keys, the_sorted_distinct_keys_of_the_items_that_have_one_at_any_thread_count) {
  // 300 000 items over 5 chunks of 2^16: 65 keys interleaved, more than the memo's 64 slots,
  // and every seventh item without a key.
  std::size_t const n = 300'000;
  auto const key_of = [](std::size_t i) -> std::optional<pair_key> {
    if (i % 7 == 3) return std::nullopt;
    return pair_key{static_cast<std::uint32_t>(i % 5), static_cast<std::int32_t>(i % 13) - 2};
  };
  std::set<pair_key> truth;
  for (std::size_t i = 10; i < n; ++i)
    if (auto const k = key_of(i)) truth.insert(*k);
  std::vector<pair_key> const want(truth.begin(), truth.end());
  ASSERT_EQ(want.size(), 65u);
  for (unsigned threads : {1u, 2u, 3u})
    EXPECT_EQ((distinct_keys<pair_key, pair_bits>(10, n, threads, key_of)), want) << threads;
  EXPECT_TRUE((distinct_keys<pair_key, pair_bits>(5, 5, 2, key_of)).empty());
}

TEST(distinct_keys, integers_that_every_item_has) {
  std::vector<std::int32_t> const ranks{7, -1, 7, 3, 3, 9, -1};
  auto const got =
      distinct_integers<std::int32_t>(0, ranks.size(), 2, [&](std::size_t i) { return ranks[i]; });
  EXPECT_EQ(got, (std::vector<std::int32_t>{-1, 3, 7, 9}));
}

}  // namespace recent_keys_test
