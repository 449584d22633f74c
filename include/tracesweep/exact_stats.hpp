// SPDX-License-Identifier: Apache-2.0
// Segmented statistics. Backends return exact integer parts (count, Σx, Σx², order statistics);
// one shared host function derives every floating value from them, so results are bit-identical
// across thread counts and backends.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tracesweep {

using int128 = __int128;
using uint128 = unsigned __int128;

/// Exact statistics of the values of one key.
struct exact_stats {
  std::uint32_t key = 0;
  std::uint64_t count = 0;
  int128 sum = 0;
  uint128 sum_sq = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::int64_t median_lo = 0;  ///< value at sorted rank (count-1)/2
  std::int64_t median_hi = 0;  ///< value at sorted rank count/2
  /// For each requested quantile q: the values at sorted ranks floor(q·(n−1)) and ceil(q·(n−1)).
  std::vector<std::int64_t> quantile_lo;
  std::vector<std::int64_t> quantile_hi;
  friend bool operator==(exact_stats const&, exact_stats const&) = default;
};

/// `sum` (an exact 128-bit total of int64 values) as int64; a total that does not fit throws
/// std::overflow_error saying `what` overflowed. Results never wrap.
[[nodiscard]] std::int64_t narrow_sum(int128 sum, std::string_view what);

/// Throws std::overflow_error saying `what` does not fit in 64 bits.
[[noreturn]] void throw_overflow(std::string_view what);

/// a + b, or std::overflow_error saying `what` overflowed: for sums of durations or bytes that
/// may overlap (a sum of times within one window always fits: |t| < 2^62).
[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b,
                                              std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) [[unlikely]]
    throw_overflow(what);
  return out;
}

/// Floating values derived from exact_stats.
struct derived_stats {
  double mean = 0;
  double median = 0;              ///< mean of the two middle values for even n
  double stddev = 0;              ///< sample standard deviation (n−1); 0 for n = 1
  std::vector<double> quantiles;  ///< linear interpolation between closest ranks
};

/// The sorted ranks whose values a backend must return for quantile q over n values.
struct quantile_ranks {
  std::uint64_t lo;
  std::uint64_t hi;
};
[[nodiscard]] quantile_ranks ranks_for_quantile(double q, std::uint64_t n) noexcept;

/// The one host function that turns exact parts into floating values.
[[nodiscard]] derived_stats derive_stats(exact_stats const& s, std::span<double const> quantiles);

}  // namespace tracesweep
