// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/decimal_time.hpp"

#include <limits>

namespace tracesweep::chrome {

namespace {

constexpr bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
constexpr bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// The end of the digits starting at `i`.
constexpr std::size_t skip_digits(std::string_view t, std::size_t i) noexcept {
  while (i < t.size() && is_digit(t[i])) ++i;
  return i;
}

constexpr std::string_view trimmed(std::string_view t) noexcept {
  while (!t.empty() && is_json_space(t.back())) t.remove_suffix(1);
  return t;
}

/// The end of the integer part (`-`? `0` | [1-9][0-9]*) of `t`, or npos when it has none.
constexpr std::size_t integer_part_end(std::string_view t) noexcept {
  std::size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  if (i >= t.size() || !is_digit(t[i])) return std::string_view::npos;
  return t[i] == '0' ? i + 1 : skip_digits(t, i);
}

}  // namespace

bool is_json_integer(std::string_view token) noexcept {
  token = trimmed(token);
  return integer_part_end(token) == token.size();
}

bool is_json_number(std::string_view token) noexcept {
  token = trimmed(token);
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

number_status decimal_to_scaled_int(std::string_view token, int scale, std::int64_t& out) noexcept {
  while (!token.empty() && is_json_space(token.back())) token.remove_suffix(1);
  // Fast path for what profilers write: 1-15 integer digits (no leading zero unless "0"),
  // optionally '.' and 1-3 fraction digits, scale 3. Exact without rounding.
  if (scale == 3 && !token.empty() && token.size() <= 19 && is_digit(token[0]) &&
      (token[0] != '0' || token.size() == 1 || token[1] == '.')) {
    std::int64_t whole = 0;
    std::size_t k = 0;
    // At most 16 digits are summed (more could overflow); more than 15 take the general path.
    while (k < token.size() && k < 16 && is_digit(token[k]))
      whole = whole * 10 + (token[k++] - '0');
    if (k <= 15) {
      if (k == token.size()) {
        out = whole * 1000;
        return number_status::ok;
      }
      if (token[k] == '.' && token.size() - k - 1 >= 1 && token.size() - k - 1 <= 3) {
        std::int64_t frac = 0;
        std::size_t digits = 0;
        for (std::size_t j = k + 1; j < token.size(); ++j, ++digits) {
          if (!is_digit(token[j])) goto general;
          frac = frac * 10 + (token[j] - '0');
        }
        for (; digits < 3; ++digits) frac *= 10;
        out = whole * 1000 + frac;
        return number_status::ok;
      }
    }
  }
general:
  std::size_t i = 0;
  auto const n = token.size();
  bool negative = false;
  if (i < n && token[i] == '-') negative = true, ++i;

  // Significant digits (integer then fraction part) with leading zeros dropped.
  char digits[64];
  int count = 0;              // digits kept in `digits`
  std::int64_t extra = 0;     // digits beyond the 64 kept: they shift the exponent (integer part)
  bool nonzero_lost = false;  // a nonzero fraction digit beyond the 64 kept
  std::int64_t exponent = scale;

  auto const int_begin = i;
  while (i < n && is_digit(token[i])) {
    if (count == 0 && token[i] == '0') {
      ++i;
      continue;
    }
    if (count < 64)
      digits[count++] = token[i];
    else
      ++extra, nonzero_lost |= token[i] != '0';
    ++i;
  }
  auto const int_digits = i - int_begin;
  if (int_digits == 0) return number_status::not_a_number;
  if (int_digits > 1 && token[int_begin] == '0') return number_status::not_a_number;  // "01"
  exponent += extra;

  if (i < n && token[i] == '.') {
    ++i;
    auto const frac_begin = i;
    while (i < n && is_digit(token[i])) {
      if (count == 0 && token[i] == '0') {
        --exponent;
      } else if (count < 64) {
        digits[count++] = token[i];
        --exponent;
      } else {
        nonzero_lost |= token[i] != '0';
      }
      ++i;
    }
    if (i == frac_begin) return number_status::not_a_number;  // "1."
  }
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (token[i] == '+' || token[i] == '-')) exp_negative = token[i] == '-', ++i;
    auto const exp_begin = i;
    std::int64_t e = 0;
    while (i < n && is_digit(token[i])) {
      if (e < 1'000'000) e = e * 10 + (token[i] - '0');
      ++i;
    }
    if (i == exp_begin) return number_status::not_a_number;
    exponent += exp_negative ? -e : e;
  }
  if (i != n) return number_status::not_a_number;

  // Trailing zeros move into the exponent.
  while (count > 0 && digits[count - 1] == '0') --count, ++exponent;
  if (count == 0 && !nonzero_lost) {
    out = 0;
    return number_status::ok;
  }

  using u128 = unsigned __int128;
  constexpr u128 limit = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  u128 value = 0;
  if (exponent >= 0) {
    if (count + exponent > 19) return number_status::out_of_range;
    for (int k = 0; k < count; ++k) value = value * 10 + static_cast<unsigned>(digits[k] - '0');
    for (std::int64_t k = 0; k < exponent; ++k) value *= 10;
  } else {
    auto const drop = -exponent;  // digits after the unit position
    if (drop > count) {
      value = 0;  // |value| < 0.1 units: rounds to 0
    } else {
      auto const keep = count - static_cast<int>(drop);
      if (keep > 19) return number_status::out_of_range;
      for (int k = 0; k < keep; ++k) value = value * 10 + static_cast<unsigned>(digits[k] - '0');
      char const first_dropped = digits[keep];
      bool const more_dropped = keep + 1 < count || nonzero_lost;  // trailing zeros are gone
      bool round_up = false;
      if (first_dropped > '5')
        round_up = true;
      else if (first_dropped == '5')
        round_up = more_dropped || (value & 1) != 0;
      if (round_up) ++value;
    }
  }
  // -2^63 fits although 2^63 does not.
  if (value > limit + (negative ? 1 : 0)) return number_status::out_of_range;
  auto const v = static_cast<std::uint64_t>(value);
  out = static_cast<std::int64_t>(negative ? 0 - v : v);  // modulo 2^64: exact in range
  return number_status::ok;
}

}  // namespace tracesweep::chrome
