// SPDX-License-Identifier: Apache-2.0
// recent_keys: a key put is found with its value until another key of its slot is put; a key
// never put, or pushed out, is not found (never another key's value).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include <tracesweep/recent_keys.hpp>

namespace {

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

}  // namespace
