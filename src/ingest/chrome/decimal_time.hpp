// SPDX-License-Identifier: Apache-2.0
// Exact conversion of a JSON number token (decimal text) to a scaled int64, never through
// double: Chrome-trace `ts`/`dur` in microseconds become nanoseconds by ×1000 with
// round-half-to-even on the dropped digits.
#pragma once

#include <cstdint>
#include <string_view>

#include "ingest/chrome/json_space.hpp"

namespace tracesweep::chrome {

enum class number_status : std::uint8_t {
  ok,
  not_a_number,  ///< the text is not a JSON number (strict RFC 8259 grammar)
  out_of_range,  ///< the scaled value does not fit in int64
};

/// Whether `token` (trailing JSON whitespace ignored) is a number by the strict RFC 8259
/// grammar: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?. "NaN", "+5", "5.",
/// "0123" and "0x10" are not.
[[nodiscard]] bool is_json_number(std::string_view token) noexcept;

/// Whether `token` is a JSON number without fraction or exponent ("-12", not "1.0" or "1e3").
[[nodiscard]] bool is_json_integer(std::string_view token) noexcept;

/// A JSON integer of at most 18 digits (`-`? (`0` | [1-9][0-9]*), trailing JSON whitespace
/// ignored) into `out`: the common case of an integer field, read in one pass. False, `out`
/// untouched, for anything else (a longer integer, a fraction, an exponent, not a number).
[[nodiscard]] bool short_json_integer(std::string_view token, std::int64_t& out) noexcept;

/// value(token) × 10^scale, rounded half to even, into `out`. Accepts the whole JSON number
/// grammar: sign, fraction, exponent ("-1.5e-3"); trailing JSON whitespace is ignored (simdjson's
/// raw tokens carry it). `out` is left alone unless the result is ok.
[[nodiscard]] number_status decimal_to_scaled_int(std::string_view token, int scale,
                                                  std::int64_t& out) noexcept;

/// What profilers write, converted in one pass: 1-18 integer digits and at most 3 fraction
/// digits (trailing JSON whitespace ignored), in µs, to ns when the result fits int64. False,
/// `out` untouched, for any other token: microseconds_to_ns decides those.
[[nodiscard]] bool fast_microseconds_to_ns(std::string_view token, std::int64_t& out) noexcept;

/// Microseconds (Chrome-trace `ts`, `dur`) to nanoseconds: decimal_to_scaled_int(token, 3).
[[nodiscard]] inline number_status microseconds_to_ns(std::string_view token,
                                                      std::int64_t& out) noexcept {
  return decimal_to_scaled_int(token, 3, out);
}

}  // namespace tracesweep::chrome
