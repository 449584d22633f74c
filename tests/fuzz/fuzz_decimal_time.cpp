// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: decimal_to_scaled_int (Chrome-trace ts/dur to int64 ns). Every input must
// give a status without undefined behaviour; an ok result must have the sign of the text and
// leave nothing wrapped; a failure must leave `out` alone; and for inputs up to 200 bytes the
// status and value must equal an independent slow conversion here (JSON grammar checked by
// hand, digits kept as strings, rounding half to even on the dropped digits); short_json_integer
// must take exactly the JSON integers of up to 18 digits, with the same value; what
// fast_microseconds_to_ns takes must convert as microseconds_to_ns does.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "ingest/chrome/decimal_time.hpp"

namespace {

using tracesweep::chrome::number_status;

struct expected {
  number_status status;
  std::int64_t value = 0;
};

bool digit(char c) {
  return c >= '0' && c <= '9';
}

/// The slow oracle: value(text) × 10^scale, rounded half to even, if it fits in int64.
expected slow_convert(std::string_view text, int scale) {
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  std::size_t i = 0;
  bool const negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  std::string whole, fraction, exponent;
  while (i < text.size() && digit(text[i])) whole += text[i++];
  if (whole.empty() || (whole.size() > 1 && whole[0] == '0')) return {number_status::not_a_number};
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && digit(text[i])) fraction += text[i++];
    if (fraction.empty()) return {number_status::not_a_number};
  }
  bool exponent_negative = false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exponent_negative = text[i++] == '-';
    while (i < text.size() && digit(text[i])) exponent += text[i++];
    if (exponent.empty()) return {number_status::not_a_number};
  }
  if (i != text.size()) return {number_status::not_a_number};

  // value = digits × 10^power, digits without leading or trailing zeros.
  std::string digits = whole + fraction;
  digits.erase(0, digits.find_first_not_of('0'));
  if (digits.empty()) return {number_status::ok, 0};
  std::int64_t power = scale - static_cast<std::int64_t>(fraction.size());
  while (digits.back() == '0') digits.pop_back(), ++power;
  exponent.erase(0, exponent.find_first_not_of('0'));
  std::int64_t e = 0;
  if (exponent.size() > 12)
    e = 1'000'000'000'000;  // beyond any digit count: enough to decide
  else if (!exponent.empty())
    e = std::stoll(exponent);
  power += exponent_negative ? -e : e;

  std::string integer;  // the integer part, then rounded
  bool round_up = false;
  if (power >= 0) {
    if (static_cast<std::int64_t>(digits.size()) + power > 25) return {number_status::out_of_range};
    integer = digits + std::string(static_cast<std::size_t>(power), '0');
  } else if (-power > static_cast<std::int64_t>(digits.size())) {
    integer = "0";  // below 0.1
  } else {
    auto const keep = digits.size() - static_cast<std::size_t>(-power);
    integer = keep == 0 ? "0" : digits.substr(0, keep);
    char const first = digits[keep];
    bool const rest = keep + 1 < digits.size();  // nonzero: trailing zeros are gone
    bool const odd = (integer.back() - '0') % 2 == 1;
    round_up = first > '5' || (first == '5' && (rest || odd));
  }
  if (integer.size() > 25) return {number_status::out_of_range};
  unsigned __int128 v = 0;
  for (char const c : integer) v = v * 10 + static_cast<unsigned>(c - '0');
  if (round_up) ++v;
  auto const max = static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max());
  if (v > max + (negative ? 1 : 0)) return {number_status::out_of_range};
  if (negative) return {number_status::ok, static_cast<std::int64_t>(-static_cast<__int128>(v))};
  return {number_status::ok, static_cast<std::int64_t>(v)};
}

[[noreturn]] void fail(std::string_view text, int scale, char const* why) {
  std::fprintf(stderr, "fuzz_decimal_time: scale %d, text \"%.*s\": %s\n", scale,
               static_cast<int>(text.size()), text.data(), why);
  std::abort();
}

/// short_json_integer: true exactly for a JSON integer of at most 18 digits, with the value
/// the slow conversion gives at scale 0; `out` untouched when false.
void check_short_integer(std::string_view text) {
  constexpr std::int64_t untouched = 0x5eed5eed5eed5eed;
  std::int64_t out = untouched;
  bool const taken = tracesweep::chrome::short_json_integer(text, out);
  auto trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t' ||
                              trimmed.back() == '\n' || trimmed.back() == '\r'))
    trimmed.remove_suffix(1);
  auto const digits = trimmed.size() - (trimmed.starts_with('-') ? 1 : 0);
  bool const short_integer = tracesweep::chrome::is_json_integer(text) && digits <= 18;
  if (taken != short_integer) fail(text, 0, "short_json_integer takes the wrong tokens");
  if (!taken && out != untouched) fail(text, 0, "short_json_integer changed out on failure");
  if (!taken || text.size() > 200) return;
  auto const want = slow_convert(text, 0);
  if (want.status != number_status::ok || want.value != out)
    fail(text, 0, "short_json_integer differs from the slow conversion");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the scale (0 to 9; 3 is ts/dur in µs → ns), the rest is the token.
  int const scale = data[0] % 10;
  std::string_view const text(reinterpret_cast<char const*>(data + 1), size - 1);
  constexpr std::int64_t untouched = 0x5eed5eed5eed5eed;
  std::int64_t out = untouched;
  auto const status = tracesweep::chrome::decimal_to_scaled_int(text, scale, out);
  if (status != number_status::ok && out != untouched) fail(text, scale, "out changed on failure");
  if (status == number_status::ok) {
    bool const minus = !text.empty() && text[0] == '-';
    if ((minus && out > 0) || (!minus && out < 0)) fail(text, scale, "sign wrapped");
  }
  if (scale == 3) {
    std::int64_t fast = untouched;
    if (tracesweep::chrome::fast_microseconds_to_ns(text, fast)) {
      if (status != number_status::ok || fast != out)
        fail(text, scale, "fast_microseconds_to_ns differs from decimal_to_scaled_int(…, 3)");
    } else if (fast != untouched) {
      fail(text, scale, "fast_microseconds_to_ns changed out on failure");
    }
    std::int64_t us = untouched;
    if (tracesweep::chrome::microseconds_to_ns(text, us) != status ||
        (status == number_status::ok && us != out))
      fail(text, scale, "microseconds_to_ns differs from decimal_to_scaled_int(…, 3)");
  }
  check_short_integer(text);
  if (text.size() <= 200) {
    auto const want = slow_convert(text, scale);
    if (want.status != status) fail(text, scale, "status differs from the slow conversion");
    if (status == number_status::ok && want.value != out)
      fail(text, scale, "value differs from the slow conversion");
  }
  return 0;
}
