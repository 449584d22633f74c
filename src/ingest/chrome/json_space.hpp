// SPDX-License-Identifier: Apache-2.0
// JSON's whitespace (RFC 8259: space, tab, line feed, carriage return), as the event splitter
// skips it between values and as simdjson's raw tokens carry it after a value; and its digits.
#pragma once

#include <string_view>

namespace tracesweep::chrome {

[[nodiscard]] constexpr bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

[[nodiscard]] constexpr bool is_ascii_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

/// `token` without the JSON whitespace after it, which simdjson's raw tokens carry.
[[nodiscard]] constexpr std::string_view trimmed_token(std::string_view token) noexcept {
  while (!token.empty() && is_json_space(token.back())) token.remove_suffix(1);
  return token;
}

}  // namespace tracesweep::chrome
