// SPDX-License-Identifier: Apache-2.0
// segmented_stats against per-key sorted vectors (std::map + std::sort) for many seeds, and the
// derived floating values against a naive long-double computation over the raw values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <tracesweep/backend.hpp>

#include "oracles.hpp"

namespace segmented_stats_test {

using namespace tracesweep;

std::vector<exact_stats> oracle_stats(std::vector<std::uint32_t> const& keys,
                                      std::vector<std::int64_t> const& values,
                                      std::vector<double> const& qs) {
  std::map<std::uint32_t, std::vector<std::int64_t>> by_key;
  for (std::size_t i = 0; i < keys.size(); ++i) by_key[keys[i]].push_back(values[i]);
  std::vector<exact_stats> out;
  for (auto const& [k, v] : by_key) out.push_back(test::oracle_stats(k, v, qs));
  return out;
}

/// mean, stddev (two-pass, n-1), median and interpolated quantiles in long double.
void expect_close_to_naive(std::vector<std::int64_t> v, exact_stats const& s,
                           std::vector<double> const& qs, std::uint64_t seed) {
  std::sort(v.begin(), v.end());
  auto const n = static_cast<long double>(v.size());
  long double sum = 0;
  for (auto x : v) sum += static_cast<long double>(x);
  long double const mean = sum / n;
  long double ss = 0;
  for (auto x : v)
    ss += (static_cast<long double>(x) - mean) * (static_cast<long double>(x) - mean);
  long double const sd = v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0;
  derived_stats const d = derive_stats(s, qs);
  auto const tol = [](long double want) { return 1e-12L * std::max(1.0L, std::fabs(want)); };
  EXPECT_NEAR(d.mean, static_cast<double>(mean), static_cast<double>(tol(mean))) << "seed " << seed;
  EXPECT_NEAR(d.stddev, static_cast<double>(sd), static_cast<double>(tol(sd))) << "seed " << seed;
  long double const med = (static_cast<long double>(v[(v.size() - 1) / 2]) + v[v.size() / 2]) / 2;
  EXPECT_EQ(d.median, static_cast<double>(med)) << "seed " << seed;
  for (std::size_t i = 0; i < qs.size(); ++i) {
    long double const pos = qs[i] * (n - 1);
    auto const lo = static_cast<std::size_t>(std::floor(pos));
    auto const hi = static_cast<std::size_t>(std::ceil(pos));
    long double const want = v[lo] + (static_cast<long double>(v[hi]) - v[lo]) * (pos - lo);
    EXPECT_NEAR(d.quantiles[i], static_cast<double>(want), static_cast<double>(tol(want)))
        << "seed " << seed << " q " << qs[i];
  }
}

TEST(segmented_stats, random_seeds_against_sorted_vectors) {
  for (std::uint64_t seed = 0; seed < 1200; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const n = seed % 100 == 0 ? 10000 : 1 + rng() % 300;
    std::uint32_t const key_space = seed % 4 == 0 ? 1 : 1 + static_cast<std::uint32_t>(rng() % 40);
    bool const sparse_keys = seed % 5 == 0;  // keys up to 2^32-1
    int const shape = static_cast<int>(seed % 4);
    std::vector<std::uint32_t> keys(n);
    std::vector<std::int64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto const k = static_cast<std::uint32_t>(rng() % key_space);
      keys[i] = sparse_keys ? ~std::uint32_t{0} - k * 1000003u : k;
      switch (shape) {
        case 0:
          values[i] = static_cast<std::int64_t>(rng() % 1000);
          break;
        case 1:
          values[i] = static_cast<std::int64_t>(rng() % 2000) - 1000;
          break;
        case 2:
          values[i] = static_cast<std::int64_t>(rng() % 5);
          break;  // many ties
        default:  // mostly durations, a few extreme values of either sign
          values[i] = rng() % 50 == 0
                          ? (rng() % 2 ? 1 : -1) *
                                ((std::int64_t{1} << 61) - static_cast<std::int64_t>(rng() % 1000))
                          : static_cast<std::int64_t>(rng() % 20'000'000'000ULL);
      }
    }
    std::vector<double> qs{0.0, 1.0, 0.5, 0.9, 0.99};
    qs.push_back(static_cast<double>(rng() % 1001) / 1000.0);
    auto const want = oracle_stats(keys, values, qs);
    auto const got = make_cpu_backend(1 + seed % 3)->segmented_stats(keys, values, qs);
    ASSERT_EQ(got, want) << "seed " << seed;
    if (seed % 10 == 0) {
      std::map<std::uint32_t, std::vector<std::int64_t>> by_key;
      for (std::size_t i = 0; i < n; ++i) by_key[keys[i]].push_back(values[i]);
      std::size_t g = 0;
      for (auto const& [k, v] : by_key) expect_close_to_naive(v, got[g++], qs, seed);
    }
  }
}

TEST(segmented_stats, durations_of_rows_of_columns_against_sorted_vectors) {
  // duration_stats packs end - start of row rows[k] of the columns straight into the sort's keys:
  // against the oracle of the gathered durations, rows in any order and repeated, narrow and
  // wide (value bits + key bits > 64) keys.
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::size_t const columns = 1 + rng() % 200;
    bool const wide = seed % 3 == 0;
    std::vector<std::int64_t> start(columns), end(columns);
    for (std::size_t i = 0; i < columns; ++i) {
      start[i] = static_cast<std::int64_t>(rng() % 1'000'000) - 500'000;
      auto const span = wide && rng() % 10 == 0 ? (std::int64_t{1} << 61) : std::int64_t{100'000};
      end[i] = start[i] + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span));
    }
    std::size_t const n = rng() % 400;
    std::vector<std::size_t> rows(n);
    std::vector<std::uint32_t> keys(n);
    std::vector<std::int64_t> durations(n);
    for (std::size_t k = 0; k < n; ++k) {
      rows[k] = static_cast<std::size_t>(rng() % columns);
      keys[k] = wide ? ~std::uint32_t{0} - static_cast<std::uint32_t>(rng() % 7) * 65537u
                     : static_cast<std::uint32_t>(rng() % 9);
      durations[k] = end[rows[k]] - start[rows[k]];
    }
    std::vector<double> const qs{0.5, 0.9, 0.0, 1.0};
    auto const got = make_cpu_backend(1 + seed % 3)->duration_stats({start, end, rows, keys}, qs);
    ASSERT_EQ(got, oracle_stats(keys, durations, qs)) << "seed " << seed;
    // Every row of the columns in order, without a list of rows.
    std::vector<std::uint32_t> every_key(columns);
    std::vector<std::int64_t> every_duration(columns);
    for (std::size_t i = 0; i < columns; ++i) {
      every_key[i] = static_cast<std::uint32_t>(rng() % 5);
      every_duration[i] = end[i] - start[i];
    }
    row_durations const every{start, end, {}, every_key, true};
    ASSERT_EQ(make_cpu_backend(1 + seed % 3)->duration_stats(every, qs),
              oracle_stats(every_key, every_duration, qs))
        << "seed " << seed;
  }
}

TEST(segmented_stats, every_row_takes_no_rows_and_a_key_per_row) {
  std::vector<std::int64_t> const start{0, 10, 20}, end{5, 15, 30};
  std::vector<std::size_t> const rows{0, 1, 2};
  std::vector<std::uint32_t> const keys{0, 0, 1}, short_keys{0, 1};
  auto be = make_cpu_backend(1);
  EXPECT_THROW((void)be->duration_stats({start, end, rows, keys, true}, {}), std::invalid_argument);
  EXPECT_THROW((void)be->duration_stats({start, end, {}, short_keys, true}, {}),
               std::invalid_argument);
  auto const got = be->duration_stats({start, end, {}, keys, true}, {});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].count, 2u);
  EXPECT_TRUE(got[0].sum == 10);
  EXPECT_EQ(got[1].count, 1u);
  EXPECT_EQ(got[1].max, 10);
}

TEST(segmented_stats, multithreaded_equals_single_thread) {
  std::mt19937_64 rng(7);
  std::size_t const n = 500000;
  std::vector<std::uint32_t> keys(n);
  std::vector<std::int64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(rng() % 2 ? 0 : rng() % 3000);  // skewed
    values[i] = static_cast<std::int64_t>(rng() % 1'000'000'000);
  }
  std::vector<double> qs{0.25, 0.5, 0.999};
  auto const one = make_cpu_backend(1)->segmented_stats(keys, values, qs);
  EXPECT_EQ(one, oracle_stats(keys, values, qs));
  for (unsigned threads : {2u, 3u, 4u})
    EXPECT_EQ(make_cpu_backend(threads)->segmented_stats(keys, values, qs), one);
}

TEST(segmented_stats, edge_cases) {
  auto be = make_cpu_backend(2);
  std::vector<double> const qs{0.5};
  EXPECT_TRUE(be->segmented_stats({}, {}, qs).empty());

  std::vector<std::uint32_t> k1{9};
  std::vector<std::int64_t> v1{std::numeric_limits<std::int64_t>::min()};
  auto const s1 = be->segmented_stats(k1, v1, qs);
  ASSERT_EQ(s1.size(), 1u);
  EXPECT_EQ(s1[0].sum_sq, uint128{1} << 126);  // |INT64_MIN|² as unsigned magnitude
  EXPECT_EQ(s1, oracle_stats(k1, v1, qs));

  // Full int64 range with several keys: dense keys (counting and selection), and keys too
  // sparse to count, which take the wide (two-pass) sort.
  std::vector<std::uint32_t> k2{1, 0, 1, 0, 2};
  std::vector<std::int64_t> v2{std::numeric_limits<std::int64_t>::max(),
                               std::numeric_limits<std::int64_t>::min(), -1, 0, 5};
  EXPECT_EQ(be->segmented_stats(k2, v2, qs), oracle_stats(k2, v2, qs));
  std::vector<std::uint32_t> const sparse{1u << 31, 0, 1u << 31, 0, 7u << 28};
  EXPECT_EQ(be->segmented_stats(sparse, v2, qs), oracle_stats(sparse, v2, qs));

  // Σx² beyond 128 bits is reported, never wrapped, whichever way the keys are grouped.
  std::vector<std::uint32_t> k3(5, 0);
  std::vector<std::int64_t> v3(5, std::numeric_limits<std::int64_t>::min());
  EXPECT_THROW((void)be->segmented_stats(k3, v3, qs), std::overflow_error);
  std::vector<std::uint32_t> const k3_sparse(5, 1u << 31);
  EXPECT_THROW((void)be->segmented_stats(k3_sparse, v3, qs), std::overflow_error);

  std::vector<double> const bad{1.5};
  EXPECT_THROW((void)be->segmented_stats(k1, v1, bad), std::invalid_argument);
  std::vector<std::int64_t> v4(2);
  EXPECT_THROW((void)be->segmented_stats(k1, v4, qs), std::invalid_argument);
}

}  // namespace segmented_stats_test
