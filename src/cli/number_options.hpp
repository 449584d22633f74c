// SPDX-License-Identifier: Apache-2.0
// Numbers on the command line: one validator for every numeric option of every command. A value
// must be written in full as a number of the option's type (no sign for an unsigned count, no
// hex or octal, nothing past the type's range), finite, and in the option's range; an empty value
// is refused. The message names the option (CLI11 prefixes it): `--top: '-1' must be 0 or more`.
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include <fmt/core.h>

namespace tracesweep::cli {

/// The name of number validators: an option that has one is not given another by
/// validate_numbers.
inline constexpr char const* number_validator_name = "number";

namespace detail {

/// Why a number below (`below`) or above [lo, hi] is refused.
template <class T>
std::string out_of_range(std::string const& text, T lo, T hi, bool below) {
  if (below && lo == 0) return fmt::format("'{}' must be 0 or more", text);
  if (below && hi == std::numeric_limits<T>::max())
    return fmt::format("'{}' must be at least {}", text, lo);
  if (!below && lo == std::numeric_limits<T>::lowest())
    return fmt::format("'{}' must be at most {}", text, hi);
  return fmt::format("'{}' is out of range [{}, {}]", text, lo, hi);
}

/// Why `text` is not a number of T in [lo, hi], or empty when it is (then `value` holds it).
template <class T>
std::string refuse_number(std::string const& text, T lo, T hi, T& value) {
  if (text.empty()) return "an empty value is not a number";
  bool const negative = text.front() == '-';
  if (std::is_unsigned_v<T> && negative) return out_of_range(text, lo, hi, true);
  auto const* end = text.data() + text.size();
  auto const [stop, ec] = std::from_chars(text.data(), end, value);
  auto const not_finite = fmt::format("'{}' is not a finite number", text);
  if (ec == std::errc::result_out_of_range)
    return std::is_integral_v<T> ? out_of_range(text, lo, hi, negative) : not_finite;
  if (ec != std::errc() || stop != end)
    return fmt::format("'{}' is not {}", text, std::is_integral_v<T> ? "an integer" : "a number");
  if constexpr (std::floating_point<T>)
    if (!std::isfinite(value)) return not_finite;
  if (value < lo || value > hi) return out_of_range(text, lo, hi, value < lo);
  return {};
}

/// The range as --help shows it after the type: "" (the type's whole range), ">=1", "in [0, 1]".
template <class T>
std::string range_text(T lo, T hi) {
  bool const from = lo != std::numeric_limits<T>::lowest(),
             to = hi != std::numeric_limits<T>::max();
  if (from && to) return fmt::format("in [{}, {}]", lo, hi);
  if (from) return fmt::format(">={}", lo);
  return to ? fmt::format("<={}", hi) : std::string();
}

}  // namespace detail

/// A number of T in [lo, hi]. A transformer: a value it accepts is rewritten in the form CLI11
/// reads back as the same number (so "010" is ten, never octal eight).
template <class T>
CLI::Validator number_in(T lo, T hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        T value{};
        auto why = detail::refuse_number(text, lo, hi, value);
        if (why.empty()) text = fmt::format("{}", value);
        return why;
      },
      detail::range_text(lo, hi), number_validator_name);
}

/// A count of things (a --top): 0 or more, and at most 2^63 − 1 so that every output that echoes
/// it holds it as an integer.
inline CLI::Validator count_validator() {
  auto v = number_in<std::size_t>(0, std::numeric_limits<std::int64_t>::max());
  v.description(">=0");
  return v;
}

/// A number of T, at least `lo`.
template <class T>
CLI::Validator number_from(T lo) {
  return number_in(lo, std::numeric_limits<T>::max());
}

/// Gives every option of `app`, its commands and their option groups whose value is a number
/// (CLI11's INT, UINT or FLOAT) and that has no number validator yet the one for its type's whole
/// range, run before any other check. Called once, after every command is added.
void validate_numbers(CLI::App& app);

}  // namespace tracesweep::cli
