// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/decimal_time.hpp"

#include <limits>

#include "ingest/chrome/json_space.hpp"

namespace tracesweep::chrome {

namespace {

/// The end of the digits starting at `i`.
constexpr std::size_t skip_digits(std::string_view t, std::size_t i) noexcept {
  while (i < t.size() && is_ascii_digit(t[i])) ++i;
  return i;
}

/// The end of the integer part (`-`? `0` | [1-9][0-9]*) of `t`, or npos when it has none.
constexpr std::size_t integer_part_end(std::string_view t) noexcept {
  std::size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  if (i >= t.size() || !is_ascii_digit(t[i])) return std::string_view::npos;
  return t[i] == '0' ? i + 1 : skip_digits(t, i);
}

}  // namespace

bool is_json_integer(std::string_view token) noexcept {
  token = trimmed_token(token);
  return integer_part_end(token) == token.size();
}

bool is_json_number(std::string_view token) noexcept {
  token = trimmed_token(token);
  auto i = integer_part_end(token);
  if (i == std::string_view::npos) return false;
  if (i < token.size() && token[i] == '.') {
    auto const end = skip_digits(token, i + 1);
    if (end == i + 1) return false;
    i = end;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    auto const end = skip_digits(token, i);
    if (end == i) return false;
    i = end;
  }
  return i == token.size();
}

bool short_json_integer(std::string_view token, std::int64_t& out) noexcept {
  token = trimmed_token(token);
  bool const negative = !token.empty() && token[0] == '-';
  auto const digits = token.substr(negative ? 1 : 0);
  if (digits.empty() || digits.size() > 18 || (digits[0] == '0' && digits.size() > 1)) return false;
  std::int64_t value = 0;  // below 10^18: no overflow
  for (char c : digits) {
    if (!is_ascii_digit(c)) return false;
    value = value * 10 + (c - '0');
  }
  out = negative ? -value : value;
  return true;
}

namespace {

/// The fast path for what profilers write: 1-18 integer digits (no leading zero unless "0"),
/// optionally '.' and 1-3 fraction digits, at scale 3, the result within int64; exact without
/// rounding. False when the token is not of that form (the general path decides then).
bool profiler_microseconds(std::string_view token, std::int64_t& out) noexcept {
  if (token.empty() || token.size() > 22 || !is_ascii_digit(token[0]) ||
      (token[0] == '0' && token.size() > 1 && token[1] != '.'))
    return false;
  std::int64_t whole = 0;
  std::size_t k = 0;
  // 18 digits sum below 10^18 < 2^63; a 19th takes the general path.
  while (k < token.size() && k < 18 && is_ascii_digit(token[k]))
    whole = whole * 10 + (token[k++] - '0');
  if (k < token.size() && is_ascii_digit(token[k])) return false;
  std::int64_t frac = 0;
  if (k < token.size()) {
    auto const fraction = token.size() - k - 1;
    if (token[k] != '.' || fraction < 1 || fraction > 3) return false;
    for (std::size_t j = k + 1; j < token.size(); ++j) {
      if (!is_ascii_digit(token[j])) return false;
      frac = frac * 10 + (token[j] - '0');
    }
    for (auto digits = fraction; digits < 3; ++digits) frac *= 10;
  }
  std::int64_t scaled = 0;
  if (__builtin_mul_overflow(whole, 1000, &scaled) || __builtin_add_overflow(scaled, frac, &scaled))
    return false;  // (out untouched: the general path reports the range)
  out = scaled;
  return true;
}

/// A JSON number as its significant digits (leading zeros dropped, at most 64 kept) times
/// 10^exponent.
struct decimal {
  bool negative = false;
  char digits[64] = {};
  int count = 0;              ///< digits kept in `digits`
  bool nonzero_lost = false;  ///< a nonzero fraction digit beyond the 64 kept
  std::int64_t exponent = 0;
};

/// The integer part's digits (no leading zero unless alone); false when there is none.
bool read_integer_part(std::string_view token, std::size_t& i, decimal& d) noexcept {
  auto const begin = i;
  std::int64_t extra = 0;  // digits beyond the 64 kept: they shift the exponent
  for (; i < token.size() && is_ascii_digit(token[i]); ++i) {
    if (d.count == 0 && token[i] == '0') continue;
    if (d.count < 64)
      d.digits[d.count++] = token[i];
    else
      ++extra, d.nonzero_lost |= token[i] != '0';
  }
  auto const digits = i - begin;
  if (digits == 0 || (digits > 1 && token[begin] == '0')) return false;  // "", "01"
  d.exponent += extra;
  return true;
}

/// A '.' and its fraction digits, when there; false for a '.' without digits ("1.").
bool read_fraction(std::string_view token, std::size_t& i, decimal& d) noexcept {
  if (i >= token.size() || token[i] != '.') return true;
  auto const begin = ++i;
  for (; i < token.size() && is_ascii_digit(token[i]); ++i) {
    if (d.count == 0 && token[i] == '0') {
      --d.exponent;
    } else if (d.count < 64) {
      d.digits[d.count++] = token[i];
      --d.exponent;
    } else {
      d.nonzero_lost |= token[i] != '0';
    }
  }
  return i != begin;
}

/// An 'e'/'E', its sign and digits, when there; false for an exponent without digits.
bool read_exponent(std::string_view token, std::size_t& i, decimal& d) noexcept {
  if (i >= token.size() || (token[i] != 'e' && token[i] != 'E')) return true;
  ++i;
  bool negative = false;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) negative = token[i] == '-', ++i;
  auto const begin = i;
  std::int64_t e = 0;
  for (; i < token.size() && is_ascii_digit(token[i]); ++i)
    if (e < 1'000'000) e = e * 10 + (token[i] - '0');
  d.exponent += negative ? -e : e;
  return i != begin;
}

/// `d` rounded to an integer (half to even), or out_of_range beyond int64.
number_status round_to_integer(decimal const& d, std::int64_t& out) noexcept {
  using u128 = unsigned __int128;
  constexpr u128 limit = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  u128 value = 0;
  if (d.exponent >= 0) {
    if (d.count + d.exponent > 19) return number_status::out_of_range;
    for (int k = 0; k < d.count; ++k) value = value * 10 + static_cast<unsigned>(d.digits[k] - '0');
    for (std::int64_t k = 0; k < d.exponent; ++k) value *= 10;
  } else if (auto const drop = -d.exponent; drop <= d.count) {  // else |value| < 0.1 units: 0
    auto const keep = d.count - static_cast<int>(drop);  // digits after the unit position dropped
    if (keep > 19) return number_status::out_of_range;
    for (int k = 0; k < keep; ++k) value = value * 10 + static_cast<unsigned>(d.digits[k] - '0');
    char const first_dropped = d.digits[keep];
    bool const more_dropped = keep + 1 < d.count || d.nonzero_lost;  // trailing zeros are gone
    if (first_dropped > '5' || (first_dropped == '5' && (more_dropped || (value & 1) != 0)))
      ++value;
  }
  // -2^63 fits although 2^63 does not.
  if (value > limit + (d.negative ? 1 : 0)) return number_status::out_of_range;
  auto const v = static_cast<std::uint64_t>(value);
  out = static_cast<std::int64_t>(d.negative ? 0 - v : v);  // modulo 2^64: exact in range
  return number_status::ok;
}

}  // namespace

bool fast_microseconds_to_ns(std::string_view token, std::int64_t& out) noexcept {
  return profiler_microseconds(trimmed_token(token), out);
}

number_status decimal_to_scaled_int(std::string_view token, int scale, std::int64_t& out) noexcept {
  token = trimmed_token(token);
  if (scale == 3 && profiler_microseconds(token, out)) return number_status::ok;
  decimal d;
  d.exponent = scale;
  std::size_t i = 0;
  if (i < token.size() && token[i] == '-') d.negative = true, ++i;
  if (!read_integer_part(token, i, d) || !read_fraction(token, i, d) ||
      !read_exponent(token, i, d) || i != token.size())
    return number_status::not_a_number;
  // Trailing zeros move into the exponent.
  while (d.count > 0 && d.digits[d.count - 1] == '0') --d.count, ++d.exponent;
  if (d.count == 0 && !d.nonzero_lost) {
    out = 0;
    return number_status::ok;
  }
  return round_to_integer(d, out);
}

}  // namespace tracesweep::chrome
