// SPDX-License-Identifier: Apache-2.0
// The one place floating statistics are made: from the exact integer parts a backend returns,
// with long double intermediates and a single rounding to double where possible.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <tracesweep/exact_stats.hpp>

namespace tracesweep {
namespace {

/// q clamped into [0, 1]; NaN counts as 0.
double clamp_quantile(double q) noexcept {
  return q > 0.0 ? (q < 1.0 ? q : 1.0) : 0.0;
}

/// The fractional rank q·(n−1), n >= 1.
double quantile_position(double q, std::uint64_t n) noexcept {
  return clamp_quantile(q) * static_cast<double>(n - 1);
}

std::uint64_t to_rank(double pos, std::uint64_t n) noexcept {
  constexpr double two_pow_64 = 18446744073709551616.0;
  std::uint64_t const r = pos >= two_pow_64 ? n - 1 : static_cast<std::uint64_t>(pos);
  return r < n - 1 ? r : n - 1;
}

uint128 magnitude(int128 x) noexcept {
  return x < 0 ? uint128{0} - static_cast<uint128>(x) : static_cast<uint128>(x);
}

/// Sample variance from exact n, Σx, Σx². The numerator D = n·Σx² − (Σx)² is formed exactly
/// in 128 bits when it fits. Otherwise with Σx = q·n + r (0 <= r < n) it equals n·M2 − r², where
/// M2 = Σ(x−q)² = Σx² − q²n − 2qr is small (about n·variance) and is computed exactly in
/// wrapping 128-bit arithmetic; if even n·M2 overflows, (M2 − r²/n)/(n−1) in long double.
long double sample_variance(std::uint64_t n, int128 sum, uint128 sum_sq) noexcept {
  long double const denom = static_cast<long double>(n) * static_cast<long double>(n - 1);
  uint128 const un = n;
  uint128 const abs_sum = magnitude(sum);
  uint128 n_sum_sq = 0;
  if ((abs_sum >> 64) == 0 && !__builtin_mul_overflow(un, sum_sq, &n_sum_sq)) {
    uint128 const sum2 = abs_sum * abs_sum;
    return n_sum_sq > sum2 ? static_cast<long double>(n_sum_sq - sum2) / denom : 0.0L;
  }
  int128 const sn = static_cast<int128>(n);
  int128 q = sum / sn;
  int128 r = sum % sn;
  if (r < 0) {  // floor division
    q -= 1;
    r += sn;
  }
  auto const uq = static_cast<uint128>(q);
  auto const ur = static_cast<uint128>(r);
  uint128 const m2 = sum_sq - uq * uq * un - 2 * uq * ur;  // exact modulo 2^128
  uint128 n_m2 = 0;
  if (!__builtin_mul_overflow(un, m2, &n_m2)) {
    uint128 const r2 = ur * ur;  // r < n <= 2^64
    return n_m2 > r2 ? static_cast<long double>(n_m2 - r2) / denom : 0.0L;
  }
  long double const lr = static_cast<long double>(ur);
  long double const num = static_cast<long double>(m2) - lr * lr / static_cast<long double>(n);
  return num > 0 ? num / static_cast<long double>(n - 1) : 0.0L;
}

}  // namespace

quantile_ranks ranks_for_quantile(double q, std::uint64_t n) noexcept {
  if (n == 0) return {0, 0};
  double const pos = quantile_position(q, n);
  return {to_rank(std::floor(pos), n), to_rank(std::ceil(pos), n)};
}

derived_stats derive_stats(exact_stats const& s, std::span<double const> quantiles) {
  if (s.quantile_lo.size() != quantiles.size() || s.quantile_hi.size() != quantiles.size())
    throw std::invalid_argument("derive_stats: quantile values do not match the quantiles asked");
  derived_stats d;
  d.quantiles.assign(quantiles.size(), 0.0);
  std::uint64_t const n = s.count;
  if (n == 0) return d;

  // Mean from the exact quotient and remainder, so a huge Σx loses nothing before dividing.
  int128 const sn = static_cast<int128>(n);
  int128 const whole = s.sum / sn;
  int128 const rest = s.sum % sn;
  d.mean = static_cast<double>(static_cast<long double>(whole) +
                               static_cast<long double>(rest) / static_cast<long double>(n));

  // lo + hi is exact in int128 and in long double (|lo + hi| <= 2^64); halving is exact.
  d.median = static_cast<double>(
      static_cast<long double>(static_cast<int128>(s.median_lo) + s.median_hi) / 2.0L);

  d.stddev = n < 2 ? 0.0 : static_cast<double>(std::sqrt(sample_variance(n, s.sum, s.sum_sq)));

  for (std::size_t i = 0; i < quantiles.size(); ++i) {
    double const pos = quantile_position(quantiles[i], n);
    long double const frac = static_cast<long double>(pos - std::floor(pos));
    std::int64_t const lo = s.quantile_lo[i];
    std::int64_t const hi = s.quantile_hi[i];
    long double const span = static_cast<long double>(static_cast<int128>(hi) - lo);
    d.quantiles[i] = static_cast<double>(static_cast<long double>(lo) + span * frac);
  }
  return d;
}

}  // namespace tracesweep

namespace tracesweep {

void throw_overflow(std::string_view what) {
  throw std::overflow_error(std::string(what) + " does not fit in 64 bits");
}

std::int64_t narrow_sum(int128 sum, std::string_view what) {
  if (sum > INT64_MAX || sum < INT64_MIN) throw_overflow(what);
  return static_cast<std::int64_t>(sum);
}

}  // namespace tracesweep
