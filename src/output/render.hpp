// SPDX-License-Identifier: Apache-2.0
// Cell rendering shared by the writers: numbers as data (CSV, JSON) and as text (with the
// column's unit, decimals and separators), and the entries of list and map cells.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output {

/// Shortest form that reads back as the same double, with ".0" when it would read as an integer;
/// "null" when not finite.
[[nodiscard]] std::string real_repr(double v);

/// A scalar as data: integers exact, reals shortest (or the column's fixed decimals), booleans
/// true/false, strings as they are. Null and nested cells give "".
[[nodiscard]] std::string data_scalar(cell const& c, column const& col);

/// A cell as the text writer shows it: "-" for null, numbers converted and rounded per the
/// column's hints, lists and maps joined per the nested table's separators.
[[nodiscard]] std::string text_cell(cell const& c, column const& col);

/// Whether text aligns the column to the right.
[[nodiscard]] bool right_aligned(column const& col) noexcept;

/// The columns `v` shows, in column order.
[[nodiscard]] std::vector<std::size_t> visible_columns(result_table const& t, view v);

/// The columns `v` shows, in text's order: text_last columns moved to the end.
[[nodiscard]] std::vector<std::size_t> text_order_columns(result_table const& t, view v);

/// The JSON string literal of `s` (quotes, escapes; a byte that is not UTF-8 becomes U+FFFD).
[[nodiscard]] std::string json_string(std::string_view s);

/// Length of the valid UTF-8 sequence at s[i] (no overlongs, surrogates or > U+10FFFF); 0 if the
/// bytes there are not one (ASCII bytes are sequences of length 1).
[[nodiscard]] std::size_t utf8_length(std::string_view s, std::size_t i) noexcept;

}  // namespace tracesweep::output
