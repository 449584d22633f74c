// SPDX-License-Identifier: Apache-2.0
// Text in the HTML page (html_text.hpp).
#include "output/html_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "output/render.hpp"

namespace tracesweep::output::html_page {

namespace {

/// An ASCII byte in HTML text or an attribute value: markup characters as references, control
/// characters other than tab, LF and CR as U+FFFD.
void append_html_escaped(std::string& o, unsigned char c) {
  switch (c) {
    case '&':
      o += "&amp;";
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '"':
      o += "&quot;";
      break;
    case '\'':
      o += "&#39;";
      break;
    default:
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
        o += replacement_character;
      else
        o += static_cast<char>(c);
  }
}

}  // namespace

std::string escape(std::string_view s) {
  return rewrite_utf8(s, replacement_character, append_html_escaped);
}

namespace {

/// The byte offset of each code point of `s` (an invalid byte counts as one), and its size.
std::vector<std::size_t> code_points(std::string_view s) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < s.size();) {
    at.push_back(i);
    auto const len = utf8_length(s, i);
    i += len ? len : 1;
  }
  at.push_back(s.size());
  return at;
}

}  // namespace

std::size_t length(std::string_view s) {
  return code_points(s).size() - 1;
}

std::string short_text(std::string_view s, std::size_t max) {
  auto const at = code_points(s);
  std::size_t const n = at.size() - 1;
  if (n <= max) return escape(s);
  std::size_t const head = (max - 1) * 2 / 5, tail = max - 1 - head;
  return escape(s.substr(0, at[head])) + "\xE2\x80\xA6" + escape(s.substr(at[n - tail]));
}

std::string header(column const& c) {
  std::string h = c.label.empty() ? c.name : c.label;
  std::string const unit = !c.text_unit.empty() ? c.text_unit : c.unit == "fraction" ? "" : c.unit;
  if (!unit.empty() && h.find("(" + unit) == std::string::npos) h += " (" + unit + ")";
  return h;
}

}  // namespace tracesweep::output::html_page
