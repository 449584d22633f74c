// SPDX-License-Identifier: Apache-2.0
// CSV (RFC 4180): one table, a header of column names, LF line ends; a field is quoted when it
// holds a comma, quote, CR or LF. Lists and maps are one field: entries joined by ";", "key=value".
// Fields are valid UTF-8 (bytes that are not become U+FFFD); with csv_safe, a field a spreadsheet
// would take for a formula is prefixed with '.
#include <tracesweep/output/safe_text.hpp>
#include <tracesweep/output/writer.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <variant>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

std::string quoted_field(std::string_view raw) {
  auto const s = valid_utf8(raw);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char const c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + '"';
}

/// Appends a scalar as data_scalar writes it.
void append_scalar(std::string& s, cell const& c, column const& col) {
  if (auto const* i = std::get_if<std::int64_t>(&c)) {
    char digits[24];
    s.append(digits, std::to_chars(digits, digits + sizeof digits, *i).ptr);
  } else if (auto const* text = std::get_if<std::string>(&c)) {
    s += *text;
  } else {
    s += data_scalar(c, col);
  }
}

/// Appends a list's or map's entries: joined by ";" (none before the first non-empty text), a
/// map's as key=value.
void append_entries(std::string& s, result_table const& t) {
  auto const from = s.size();
  for (auto const& r : t.rows) {
    if (s.size() > from) s += ';';
    append_scalar(s, r.cells[0], t.columns[0]);
    if (t.shape == json_shape::map && t.columns.size() > 1) {
      s += '=';
      append_scalar(s, r.cells[1], t.columns[1]);
    }
  }
}

std::string field(cell const& c, column const& col) {
  if (std::holds_alternative<std::monostate>(c)) return col.flat_null;
  auto const* n = std::get_if<std::shared_ptr<result_table const>>(&c);
  if (!n) return data_scalar(c, col);
  std::string s;
  append_entries(s, **n);
  return s;
}

/// Whether all of `s` is a number (a sign allowed): a spreadsheet reads it as one.
bool is_number(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  double v = 0;
  auto const [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

/// Whether a spreadsheet would take `s` for a formula: it starts with =, +, - or @ and is more
/// than that one character and not a number.
bool formula_like(std::string_view s) {
  return s.size() > 1 && std::string_view("=+-@").find(s.front()) != std::string_view::npos &&
         !is_number(s);
}

/// A cell's field: with `safe`, a formula-looking one prefixed with '.
std::string cell_field(cell const& c, column const& col, bool safe) {
  auto text = field(c, col);
  if (safe && formula_like(text)) text.insert(0, 1, '\'');
  return text;
}

/// What one pass over a field's bytes tells: all ASCII (then valid UTF-8 as it is), and whether
/// it holds a comma, quote, CR or LF (then it is quoted).
struct text_scan {
  bool ascii = true;
  bool quoted = false;
};
text_scan scan(std::string_view s) noexcept {
  unsigned char any = 0;
  bool special = false;
  for (char const c : s) {
    any |= static_cast<unsigned char>(c);
    special |= (c == ',') | (c == '"') | (c == '\r') | (c == '\n');
  }
  return {any < 0x80, special};
}

/// Appends valid UTF-8 text as one field: quoted, its quotes doubled, when `quoted`.
void append_text(std::string& line, std::string_view s, bool quoted) {
  if (!quoted) {
    line += s;
    return;
  }
  line += '"';
  for (auto q = s.find('"'); q != std::string_view::npos; q = s.find('"')) {
    line.append(s.substr(0, q + 1)).append(1, '"');
    s.remove_prefix(q + 1);
  }
  line.append(s).append(1, '"');
}

/// Appends a cell's field to `line`: integers, ASCII text and lists of them directly (a list
/// joined in `scratch` first), the rest as cell_field and quoted_field make them.
void append_field(std::string& line, std::string& scratch, cell const& c, column const& col,
                  bool safe) {
  if (std::holds_alternative<std::int64_t>(c)) {
    append_scalar(line, c, col);
    return;
  }
  std::string const* s =
      std::holds_alternative<std::monostate>(c) ? &col.flat_null : std::get_if<std::string>(&c);
  if (auto const* n = std::get_if<std::shared_ptr<result_table const>>(&c)) {
    scratch.clear();
    append_entries(scratch, **n);
    s = &scratch;
  }
  if (s) {
    auto const text = scan(*s);
    if (text.ascii && !(safe && formula_like(*s))) {
      append_text(line, *s, text.quoted);
      return;
    }
  }
  line += quoted_field(cell_field(c, col, safe));
}

}  // namespace

void write_csv(result_set const& results, std::string_view table, std::ostream& out,
               write_options const& o) {
  auto const tables = tables_for(results, flat, table);
  if (tables.empty()) return;
  auto const& t = *tables.front();
  auto const cols = visible_columns(t, flat);
  for (std::size_t j = 0; j < cols.size(); ++j)
    out << (j ? "," : "") << quoted_field(t.columns[cols[j]].name);
  out << '\n';
  // Rows are formatted into one buffer, written a block at a time.
  constexpr std::size_t block = std::size_t{1} << 16;
  std::string lines, scratch;
  lines.reserve(2 * block);
  for_each_row(t, [&](row const& r) {
    for (std::size_t j = 0; j < cols.size(); ++j) {
      if (j) lines += ',';
      append_field(lines, scratch, r.cells[cols[j]], t.columns[cols[j]], o.csv_safe);
    }
    lines += '\n';
    if (lines.size() >= block) {
      out.write(lines.data(), static_cast<std::streamsize>(lines.size()));
      lines.clear();
    }
  });
  out.write(lines.data(), static_cast<std::streamsize>(lines.size()));
  out.flush();
}

}  // namespace tracesweep::output
