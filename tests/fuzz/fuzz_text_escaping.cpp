// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: what the tool writes of untrusted text (output/safe_text.hpp and the text
// writer). For any bytes: valid_utf8 gives valid UTF-8, is idempotent and keeps valid input as it
// is; terminal_text gives valid UTF-8 without a control character (C0, DEL, C1) and, for valid
// input without a backslash, unescapes back to the input; a text table holding the bytes as
// title, header and cell is valid UTF-8 with no control character but its line ends, on exactly
// the lines the table has.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include <tracesweep/output/safe_text.hpp>
#include <tracesweep/output/writer.hpp>

namespace {

namespace out = tracesweep::output;

[[noreturn]] void fail(char const* why) {
  std::fprintf(stderr, "fuzz_text_escaping: %s\n", why);
  std::abort();
}

/// Whether `s` holds a control character other than the LF of `allowed_lf`.
bool has_control(std::string_view s, bool allowed_lf) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto const c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && !(allowed_lf && c == '\n')) || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) return true;
  }
  return false;
}

int hex(char c) {
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

/// The inverse of terminal_text's escapes on text that held no backslash.
std::string unescape(std::string_view s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      o += s[i];
      continue;
    }
    char const k = s.at(++i);
    if (k == 'n' || k == 'r' || k == 't') {
      o += k == 'n' ? '\n' : k == 'r' ? '\r' : '\t';
    } else if (k == 'x') {
      o += static_cast<char>(hex(s.at(i + 1)) * 16 + hex(s.at(i + 2)));
      i += 2;
    } else {  // \u00HH: a C1 control, two bytes in UTF-8
      o += '\xC2';
      o += static_cast<char>(hex(s.at(i + 3)) * 16 + hex(s.at(i + 4)));
      i += 4;
    }
  }
  return o;
}

void check_text_table(std::string const& s) {
  out::result_set set;
  auto& t = set.tables.emplace_back();
  t.name = "t";
  t.title = s;
  t.add("name", out::value_type::string).label = s;
  t.add_row({s});
  std::ostringstream text;
  out::find_writer("text")(set, "", text, {});
  auto const written = text.str();
  if (!out::is_valid_utf8(written)) fail("text output is not valid UTF-8");
  if (has_control(written, true)) fail("text output holds a control character");
  std::size_t lines = 0;
  for (char c : written) lines += c == '\n';
  if (lines != 3) fail("text output is not title, header and one row");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string const s(reinterpret_cast<char const*>(data), size);
  auto const repaired = out::valid_utf8(s);
  if (!out::is_valid_utf8(repaired)) fail("valid_utf8 is not valid UTF-8");
  if (out::valid_utf8(repaired) != repaired) fail("valid_utf8 is not idempotent");
  if (out::is_valid_utf8(s) && repaired != s) fail("valid_utf8 changed valid UTF-8");
  auto const shown = out::terminal_text(s);
  if (!out::is_valid_utf8(shown)) fail("terminal_text is not valid UTF-8");
  if (has_control(shown, false)) fail("terminal_text holds a control character");
  if (out::is_valid_utf8(s) && s.find('\\') == std::string::npos && unescape(shown) != s)
    fail("terminal_text does not unescape to its input");
  check_text_table(s);
  return 0;
}
