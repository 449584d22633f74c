// SPDX-License-Identifier: Apache-2.0
// derive_stats and ranks_for_quantile on hand-checked cases and on extreme exact sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/exact_stats.hpp>

namespace derive_stats_test {

using namespace tracesweep;

exact_stats stats_of(std::vector<std::int64_t> const& v, std::vector<double> const& qs) {
  std::vector<std::uint32_t> keys(v.size(), 0);
  auto s = make_cpu_backend(1)->segmented_stats(keys, v, qs);
  EXPECT_EQ(s.size(), 1u);
  return s.at(0);
}

TEST(derive_stats, ranks_for_quantile) {
  EXPECT_EQ(ranks_for_quantile(0.5, 0).lo, 0u);
  EXPECT_EQ(ranks_for_quantile(0.5, 1).hi, 0u);
  EXPECT_EQ(ranks_for_quantile(0.5, 4).lo, 1u);
  EXPECT_EQ(ranks_for_quantile(0.5, 4).hi, 2u);
  EXPECT_EQ(ranks_for_quantile(0.5, 5).lo, 2u);
  EXPECT_EQ(ranks_for_quantile(0.5, 5).hi, 2u);
  EXPECT_EQ(ranks_for_quantile(1.0, 10).lo, 9u);
  EXPECT_EQ(ranks_for_quantile(0.0, 10).hi, 0u);
  EXPECT_EQ(ranks_for_quantile(std::nan(""), 10).hi, 0u);
  EXPECT_EQ(ranks_for_quantile(7.0, 10).lo, 9u);
  EXPECT_EQ(ranks_for_quantile(0.25, 4).lo, 0u);  // 0.75
  EXPECT_EQ(ranks_for_quantile(0.25, 4).hi, 1u);
  auto const big = ranks_for_quantile(1.0, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(big.lo, std::numeric_limits<std::uint64_t>::max() - 1);
}

TEST(derive_stats, small_hand_checked_cases) {
  std::vector<double> const qs{0.0, 0.25, 0.5, 1.0};
  derived_stats const one = derive_stats(stats_of({42}, qs), qs);
  EXPECT_EQ(one.mean, 42.0);
  EXPECT_EQ(one.median, 42.0);
  EXPECT_EQ(one.stddev, 0.0);
  EXPECT_EQ(one.quantiles, (std::vector<double>{42, 42, 42, 42}));

  derived_stats const two = derive_stats(stats_of({2, 1}, qs), qs);
  EXPECT_EQ(two.mean, 1.5);
  EXPECT_EQ(two.median, 1.5);
  EXPECT_DOUBLE_EQ(two.stddev, std::sqrt(0.5));
  EXPECT_EQ(two.quantiles, (std::vector<double>{1, 1.25, 1.5, 2}));

  derived_stats const even = derive_stats(stats_of({40, 10, 30, 20}, qs), qs);
  EXPECT_EQ(even.mean, 25.0);
  EXPECT_EQ(even.median, 25.0);
  EXPECT_DOUBLE_EQ(even.stddev, std::sqrt(500.0 / 3.0));  // Σ(x-25)² = 500
  EXPECT_EQ(even.quantiles, (std::vector<double>{10, 17.5, 25, 40}));

  derived_stats const odd = derive_stats(stats_of({100, 1, 2}, qs), qs);
  EXPECT_EQ(odd.median, 2.0);
  EXPECT_DOUBLE_EQ(odd.mean, 103.0 / 3.0);

  derived_stats const neg = derive_stats(stats_of({-3, -1}, qs), qs);
  EXPECT_EQ(neg.mean, -2.0);
  EXPECT_EQ(neg.median, -2.0);
  EXPECT_DOUBLE_EQ(neg.stddev, std::sqrt(2.0));

  exact_stats empty;
  empty.quantile_lo.resize(qs.size());
  empty.quantile_hi.resize(qs.size());
  EXPECT_EQ(derive_stats(empty, qs).mean, 0.0);
  EXPECT_THROW((void)derive_stats(exact_stats{}, qs), std::invalid_argument);
}

TEST(derive_stats, huge_values_take_the_exact_fallbacks) {
  std::vector<double> const qs{0.5};
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();

  // Σx >= 2^64: the quotient/remainder path; all equal, so stddev is exactly 0.
  derived_stats const same = derive_stats(stats_of({max, max, max}, qs), qs);
  EXPECT_EQ(same.stddev, 0.0);
  EXPECT_EQ(same.mean, static_cast<double>(max));
  EXPECT_EQ(same.median, static_cast<double>(max));

  // Spread 1 around 2^62: stddev exactly 1 although Σx² ~ 2^125.
  constexpr std::int64_t p62 = std::int64_t{1} << 62;
  derived_stats const tight = derive_stats(stats_of({p62, p62 + 1, p62 + 2}, qs), qs);
  EXPECT_EQ(tight.stddev, 1.0);
  EXPECT_EQ(tight.median, static_cast<double>(p62 + 1));

  // n·Σx² and n·M2 overflow 128 bits: the long double path. Mean -0.5, deviations ±(2^63-0.5):
  // variance = 4(2^63 - 0.5)² / 3.
  derived_stats const ends = derive_stats(stats_of({min, max, min, max}, qs), qs);
  long double const dev = 9223372036854775807.5L;
  long double const want = std::sqrt(4 * dev * dev / 3);
  EXPECT_NEAR(ends.stddev, static_cast<double>(want), 1e-15 * static_cast<double>(want));
  EXPECT_EQ(ends.mean, -0.5);
  EXPECT_EQ(ends.median, -0.5);

  // The two middles of an even count near the int64 limits: no overflow in lo + hi.
  derived_stats const mid = derive_stats(stats_of({max, max - 2}, qs), qs);
  EXPECT_EQ(mid.median, static_cast<double>(max - 1));
}

}  // namespace derive_stats_test
