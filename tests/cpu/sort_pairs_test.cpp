// SPDX-License-Identifier: Apache-2.0
// sort_pairs against std::stable_sort of (key, payload) records, for many seeds and key shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include <tracesweep/backend.hpp>

namespace sort_pairs_test {

using tracesweep::make_cpu_backend;

struct pairs {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> values;
};

/// The expected result: a stable comparison sort of the records.
pairs oracle_sort(pairs const& in) {
  std::vector<std::size_t> order(in.keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return in.keys[a] < in.keys[b]; });
  pairs out;
  for (auto i : order) {
    out.keys.push_back(in.keys[i]);
    out.values.push_back(in.values[i]);
  }
  return out;
}

/// Keys of one of several shapes, all below 2^end_bit.
pairs random_pairs(std::mt19937_64& rng, std::size_t n, int end_bit, int shape) {
  std::uint64_t const mask = end_bit == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << end_bit) - 1;
  pairs p;
  std::uint64_t t[8] = {};
  for (auto& x : t) x = rng() & mask;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t k = 0;
    switch (shape) {
      case 0:
        k = rng();
        break;  // uniform
      case 1:
        k = rng() % 7;
        break;   // few distinct keys: stability matters
      case 2: {  // interleaved near-monotone streams
        auto& s = t[rng() % 8];
        s += rng() % 1000;
        k = s;
        break;
      }
      case 3:
        k = (std::uint64_t{1} << 62) + rng() % 4096;
        break;  // near 2^62, low bits vary
      default:
        k = i;
        break;  // already sorted
    }
    p.keys.push_back(k & mask);
    p.values.push_back(static_cast<std::uint32_t>(i));
  }
  return p;
}

TEST(sort_pairs, matches_stable_sort_over_seeds) {
  for (std::uint64_t seed = 0; seed < 1200; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const n = seed % 100 == 0 ? 10000 : rng() % 400;
    int const end_bit = seed % 3 == 0 ? 64 : static_cast<int>(1 + rng() % 64);
    int const shape = static_cast<int>(seed % 5);
    pairs const in = random_pairs(rng, n, end_bit, shape);
    pairs const want = oracle_sort(in);
    pairs got = in;
    make_cpu_backend(1 + seed % 3)->sort_pairs(got.keys, got.values, end_bit);
    ASSERT_EQ(got.keys, want.keys) << "seed " << seed;
    ASSERT_EQ(got.values, want.values) << "seed " << seed;
  }
}

TEST(sort_pairs, multithreaded_equals_stable_sort) {
  // Large enough that several threads really split the work.
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed);
    pairs const in = random_pairs(rng, 300000, seed % 2 ? 64 : 40, static_cast<int>(seed % 4));
    pairs const want = oracle_sort(in);
    for (unsigned threads : {1u, 2u, 3u, 4u}) {
      pairs got = in;
      make_cpu_backend(threads)->sort_pairs(got.keys, got.values, seed % 2 ? 64 : 40);
      ASSERT_EQ(got.keys, want.keys) << "seed " << seed << " threads " << threads;
      ASSERT_EQ(got.values, want.values) << "seed " << seed << " threads " << threads;
    }
  }
}

TEST(sort_pairs, large_blocks_split_and_recursed) {
  // Above 2^20 items the sort splits by the top bits of the key range in parallel; a bucket that
  // stays large (skewed keys) is split again, a cache-sized one finished by LSD passes.
  // Groups of time-ordered keys, interleaved (rows of a few threads read in time order): every
  // bucket of the first split is in order already and left as it is; with a few keys moved out of
  // place, the buckets they land in must still be sorted.
  std::mt19937_64 rng(77);
  std::size_t const n = 1'500'000;
  for (int shape = 0; shape < 6; ++shape) {
    pairs in;
    std::uint64_t clock[16] = {};
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t k = 0;
      switch (shape) {
        case 0:
          k = rng();  // uniform: 64-bit range, small buckets
          break;
        case 1:  // timestamps near 2^60 spanning ~2^31 ns: LSD on ~2^20-item buckets
          k = (std::uint64_t{1} << 60) + (rng() % (std::uint64_t{1} << 31));
          break;
        case 2:  // skewed: almost all keys in the lowest bucket, a few near 2^63
          k = i % 100000 == 0 ? (std::uint64_t{1} << 63) + rng() % 1000 : rng() % (1u << 30);
          break;
        case 3:  // few distinct keys spread over the range: stability of every split
          k = (rng() % 5) << 61;
          break;
        default: {  // 16 interleaved groups, each in time order; shape 5: 1 in 50,000 misplaced
          auto const g = rng() % 16;
          clock[g] += rng() % 3;  // repeated times too: stability within a sorted bucket
          k = (g << 40) | clock[g];
          if (shape == 5 && i % 50000 == 7) k = (g << 40) | (rng() % (clock[g] + 1));
          break;
        }
      }
      in.keys.push_back(k);
      in.values.push_back(static_cast<std::uint32_t>(i));
    }
    pairs const want = oracle_sort(in);
    for (unsigned threads : {1u, 2u, 3u}) {
      pairs got = in;
      make_cpu_backend(threads)->sort_pairs(got.keys, got.values);
      ASSERT_EQ(got.keys, want.keys) << "shape " << shape << " threads " << threads;
      ASSERT_EQ(got.values, want.values) << "shape " << shape << " threads " << threads;
    }
  }
}

TEST(sort_pairs, edge_cases) {
  auto be = make_cpu_backend(2);
  pairs empty;
  be->sort_pairs(empty.keys, empty.values);
  EXPECT_TRUE(empty.keys.empty());

  pairs one{{42}, {7}};
  be->sort_pairs(one.keys, one.values);
  EXPECT_EQ(one.keys, std::vector<std::uint64_t>{42});
  EXPECT_EQ(one.values, std::vector<std::uint32_t>{7});

  pairs same{std::vector<std::uint64_t>(1000, ~std::uint64_t{0}), {}};
  for (std::uint32_t i = 0; i < 1000; ++i) same.values.push_back(999 - i);
  pairs const want = oracle_sort(same);
  be->sort_pairs(same.keys, same.values);
  EXPECT_EQ(same.values, want.values);

  pairs extremes{{~std::uint64_t{0}, 0, std::uint64_t{1} << 63, 1, ~std::uint64_t{0} - 1},
                 {0, 1, 2, 3, 4}};
  for (int k = 0; k < 100; ++k) {  // past the insertion-sort cut-off
    extremes.keys.push_back(extremes.keys[k % 5] ^ static_cast<std::uint64_t>(k));
    extremes.values.push_back(static_cast<std::uint32_t>(k + 5));
  }
  pairs const want2 = oracle_sort(extremes);
  be->sort_pairs(extremes.keys, extremes.values);
  EXPECT_EQ(extremes.keys, want2.keys);
  EXPECT_EQ(extremes.values, want2.values);

  std::vector<std::uint64_t> k2(3);
  std::vector<std::uint32_t> v2(2);
  EXPECT_THROW(be->sort_pairs(k2, v2), std::invalid_argument);
}

}  // namespace sort_pairs_test
