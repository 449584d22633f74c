// SPDX-License-Identifier: Apache-2.0
// Cell rendering shared by the writers: numbers as data (CSV, JSON) and as text (with the
// column's unit, decimals and separators), and the entries of list and map cells.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/output/writer.hpp>

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

/// The columns of `t` as text and HTML show them under `o` (write_options::time_unit): times
/// (unit "ns", timestamps aside) in the time unit asked for, else in the table's own text unit,
/// else in ms (in nsys-style report tables: ns, as nsys prints them); byte counts without a text
/// unit in KiB, MiB or GiB, one unit per column (the largest its values reach). The header names
/// the unit.
[[nodiscard]] std::vector<column> shown_columns(result_table const& t, write_options const& o);

/// Whether text aligns the column to the right.
[[nodiscard]] bool right_aligned(column const& col) noexcept;

/// The columns `v` shows, in column order.
[[nodiscard]] std::vector<std::size_t> visible_columns(result_table const& t, view v);

/// The columns `v` shows, in text's order: text_last columns moved to the end.
[[nodiscard]] std::vector<std::size_t> text_order_columns(result_table const& t, view v);

/// A cell as JSON writes it inside a row (a nested table compactly or over lines, as its shape
/// asks): json_writer.cpp.
[[nodiscard]] std::string json_value_text(cell const& c, column const& col);

/// The JSON string literal of `s` (quotes, escapes; a byte that is not UTF-8 becomes U+FFFD).
[[nodiscard]] std::string json_string(std::string_view s);

/// Length of the valid UTF-8 sequence at s[i] (no overlongs, surrogates or > U+10FFFF); 0 if the
/// bytes there are not one (ASCII bytes are sequences of length 1).
[[nodiscard]] std::size_t utf8_length(std::string_view s, std::size_t i) noexcept;

/// U+FFFD in UTF-8: what a byte that is not valid UTF-8 becomes.
inline constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

/// `s` rewritten code point by code point, the one walk over UTF-8 that every writer shares: an
/// ASCII byte goes through `ascii(out, byte)`, a valid longer sequence through
/// `wide(out, sequence)`, and a byte that is not valid UTF-8 becomes `invalid`.
template <class Ascii, class Wide>
std::string rewrite_utf8(std::string_view s, std::string_view invalid, Ascii ascii, Wide wide) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto const c = static_cast<unsigned char>(s[i]);
    auto const len = c < 0x80 ? 1 : utf8_length(s, i);
    if (c < 0x80)
      ascii(out, c);
    else if (len)
      wide(out, s.substr(i, len));
    else
      out += invalid;
    i += len ? len : 1;
  }
  return out;
}

/// rewrite_utf8 keeping valid longer sequences as they are.
template <class Ascii>
std::string rewrite_utf8(std::string_view s, std::string_view invalid, Ascii ascii) {
  return rewrite_utf8(s, invalid, ascii,
                      [](std::string& out, std::string_view seq) { out += seq; });
}

}  // namespace tracesweep::output
