// SPDX-License-Identifier: Apache-2.0
// valid_utf8 and terminal_text, on the writers' one UTF-8 walk (rewrite_utf8, render.hpp).
#include <tracesweep/output/safe_text.hpp>

#include <fmt/format.h>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

void append_byte(std::string& o, unsigned char c) {
  o += static_cast<char>(c);
}

/// An ASCII byte for a terminal: LF, CR and tab as "\n", "\r", "\t"; other controls as "\xHH".
void append_terminal_ascii(std::string& o, unsigned char c) {
  if (c >= 0x20 && c != 0x7F)
    o += static_cast<char>(c);
  else if (c == '\n')
    o += "\\n";
  else if (c == '\r')
    o += "\\r";
  else if (c == '\t')
    o += "\\t";
  else
    o += fmt::format("\\x{:02x}", c);
}

/// A longer sequence for a terminal: a C1 control (U+0080–U+009F, two bytes C2 80–C2 9F) as
/// "\u00HH", anything else as it is.
void append_terminal_wide(std::string& o, std::string_view seq) {
  auto const second = static_cast<unsigned char>(seq[1]);
  if (seq.size() == 2 && static_cast<unsigned char>(seq[0]) == 0xC2 && second < 0xA0)
    o += fmt::format("\\u{:04x}", second);
  else
    o += seq;
}

}  // namespace

bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    auto const len = utf8_length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string valid_utf8(std::string_view s) {
  return rewrite_utf8(s, replacement_character, append_byte);
}

std::string terminal_text(std::string_view s) {
  return rewrite_utf8(s, replacement_character, append_terminal_ascii, append_terminal_wide);
}

}  // namespace tracesweep::output
