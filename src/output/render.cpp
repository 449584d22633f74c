// SPDX-License-Identifier: Apache-2.0
#include "output/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

#include <fmt/format.h>

namespace tracesweep::output {

namespace {

/// `v` in the column's text unit.
double to_text_unit(double v, column const& col) {
  if (col.text_unit.empty() || col.text_unit == col.unit) return v;
  if (col.unit == "ns" && col.text_unit == "ms") return v / 1e6;
  if (col.unit == "ns" && col.text_unit == "us") return v / 1000.0;
  if (col.unit == "ns" && col.text_unit == "s") return v / 1e9;
  if (col.unit == "bytes" && col.text_unit == "MB") return v / 1e6;
  if (col.unit == "bytes" && col.text_unit == "KiB") return v / 1024.0;
  if (col.unit == "bytes" && col.text_unit == "MiB") return v / 1048576.0;
  if (col.unit == "bytes" && col.text_unit == "GiB") return v / 1073741824.0;
  if (col.unit == "fraction" && col.text_unit == "%") return v * 100.0;
  return v;
}

std::string fixed(double v, int decimals) {
  if (decimals == 0) return fmt::format("{}", static_cast<std::int64_t>(std::nearbyint(v)));
  return fmt::format("{:.{}f}", v, decimals);
}

/// Inserts "," every three digits of the integer part.
std::string group_thousands(std::string const& s) {
  auto const dot = s.find('.');
  std::size_t const end = dot == std::string::npos ? s.size() : dot;
  std::size_t const first = (!s.empty() && s[0] == '-') ? 1 : 0;
  std::string out = s.substr(0, first);
  for (std::size_t i = first; i < end; ++i) {
    if (i > first && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

/// `v` to `decimals`, or where that would show a nonzero value as zero ("0.000"), to as many
/// more decimals as show its first two significant digits ("0.00033").
std::string fixed_nonzero(double v, int decimals) {
  auto s = fixed(v, decimals);
  if (v == 0 || !std::isfinite(v) || s.find_first_of("123456789") != std::string::npos) return s;
  int const first = static_cast<int>(std::floor(-std::log10(std::abs(v)))) + 1;
  return fmt::format("{:.{}f}", v, std::min(std::max(first + 1, decimals + 1), 340));
}

std::string text_number(double v, column const& col) {
  v = to_text_unit(v, col);
  return col.decimals >= 0 ? fixed_nonzero(v, col.decimals) : real_repr(v);
}

/// Text of a list or map cell: entries joined by the nested table's separators, consecutive
/// integer keys with equal values folded into "first-last" when asked.
std::string text_entries(result_table const& t) {
  if (t.rows.empty()) return "-";
  auto entry = [&](row const& r, std::size_t j) { return text_cell(r.cells[j], t.columns[j]); };
  std::string s;
  if (t.shape != json_shape::map || t.columns.size() < 2) {
    for (auto const& r : t.rows) s += (s.empty() ? "" : t.text_separator) + entry(r, 0);
    return s;
  }
  for (auto it = t.rows.begin(); it != t.rows.end();) {
    auto last = it;
    if (t.text_fold_ranges)
      for (auto next = std::next(it);
           next != t.rows.end() && std::holds_alternative<std::int64_t>(next->cells[0]) &&
           std::holds_alternative<std::int64_t>(last->cells[0]) &&
           std::get<std::int64_t>(next->cells[0]) == std::get<std::int64_t>(last->cells[0]) + 1 &&
           next->cells[1] == it->cells[1];
           ++next)
        last = next;
    if (it != t.rows.begin()) s += t.text_separator;
    s += entry(*it, 0);
    if (last != it) s += '-' + entry(*last, 0);
    s += t.text_pair + entry(*it, 1);
    it = std::next(last);
  }
  return s;
}

/// An ASCII byte in a JSON string: quote, backslash and control characters escaped.
void append_json_escaped(std::string& o, unsigned char c) {
  switch (c) {
    case '"':
      o += "\\\"";
      break;
    case '\\':
      o += "\\\\";
      break;
    case '\n':
      o += "\\n";
      break;
    case '\r':
      o += "\\r";
      break;
    case '\t':
      o += "\\t";
      break;
    case '\b':
      o += "\\b";
      break;
    case '\f':
      o += "\\f";
      break;
    default:
      if (c < 0x20)
        o += fmt::format("\\u{:04x}", c);
      else
        o += static_cast<char>(c);
  }
}

/// Header `h` naming `unit`: a trailing "(ns)", "(us)", "(ms)", "(s)" or "(bytes)" replaced, a
/// trailing "_ns" or "_bytes" of a field name turned into it, else " (unit)" appended.
std::string header_in(std::string h, std::string const& unit) {
  // Built as fmt formats it: GCC 12 warns (-Wrestrict, -Wstringop-overflow: false positives) on
  // "(" + s + ")" and on resizing and appending to `h`.
  auto with_unit = [&](std::size_t keep, char const* open) {
    return fmt::format("{}{}{})", std::string_view(h).substr(0, keep), open, unit);
  };
  for (std::string_view u : {"(ns)", "(us)", "(ms)", "(s)", "(bytes)"})
    if (h.ends_with(u)) return with_unit(h.size() - u.size(), "(");
  for (std::string_view u : {"_ns", "_bytes"})
    if (h.ends_with(u)) return with_unit(h.size() - u.size(), " (");
  return with_unit(h.size(), " (");
}

void show_time_in(column& c, text_style style, std::string const& asked) {
  std::string unit = asked;
  if (unit.empty()) {
    if (!c.text_unit.empty() || style == text_style::report) return;  // the table's own unit
    unit = "ms";
  }
  if (c.text_unit == unit || (unit == "ns" && c.text_unit.empty())) return;
  c.text_unit = unit;
  c.decimals = unit == "ns" ? 0 : unit == "s" ? 6 : 3;
  c.label = header_in(c.label.empty() ? c.name : c.label, unit);
}

/// The largest |value| of column j (0 when it has none).
double largest(result_table const& t, std::size_t j) {
  double m = 0;
  for_each_row(t, [&](row const& r) {
    if (auto const* i = std::get_if<std::int64_t>(&r.cells[j]))
      m = std::max(m, std::abs(static_cast<double>(*i)));
    else if (auto const* d = std::get_if<double>(&r.cells[j]); d && std::isfinite(*d))
      m = std::max(m, std::abs(*d));
  });
  return m;
}

void show_bytes_in(column& c, double most) {
  char const* const unit = most >= 1073741824.0 ? "GiB"
                           : most >= 1048576.0  ? "MiB"
                           : most >= 1024.0     ? "KiB"
                                                : nullptr;
  if (unit == nullptr) return;
  c.text_unit = unit;
  c.decimals = 2;
  c.thousands = false;
  c.label = header_in(c.label.empty() ? c.name : c.label, unit);
}

}  // namespace

std::vector<column> shown_columns(result_table const& t, write_options const& o) {
  auto out = t.columns;
  for (std::size_t j = 0; j < out.size(); ++j) {
    auto& c = out[j];
    if (c.unit == "ns" && !c.timestamp &&
        (c.type == value_type::integer || c.type == value_type::real))
      show_time_in(c, t.style, o.time_unit);
    else if (c.unit == "bytes" && c.text_unit.empty() && t.style != text_style::report &&
             (c.type == value_type::integer || c.type == value_type::real))
      show_bytes_in(c, largest(t, j));
  }
  return out;
}

std::string real_repr(double v) {
  if (!std::isfinite(v)) return "null";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string data_scalar(cell const& c, column const& col) {
  if (auto const* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  if (auto const* d = std::get_if<double>(&c)) {
    if (col.fixed && col.decimals >= 0 && std::isfinite(*d)) return fixed(*d, col.decimals);
    return real_repr(*d);
  }
  if (auto const* b = std::get_if<bool>(&c)) return *b ? "true" : "false";
  if (auto const* s = std::get_if<std::string>(&c)) return *s;
  return {};
}

std::string text_cell(cell const& c, column const& col) {
  std::string s;
  if (std::holds_alternative<std::monostate>(c)) return "-";
  if (auto const* n = std::get_if<std::shared_ptr<result_table const>>(&c))
    return text_entries(**n);
  if (auto const* i = std::get_if<std::int64_t>(&c))
    s = col.decimals >= 0 || !col.text_unit.empty() ? text_number(static_cast<double>(*i), col)
                                                    : std::to_string(*i);
  else if (auto const* d = std::get_if<double>(&c))
    s = text_number(*d, col);
  else
    return data_scalar(c, col);
  return col.thousands ? group_thousands(s) : s;
}

bool right_aligned(column const& col) noexcept {
  if (col.text_align != align::automatic) return col.text_align == align::right;
  return col.type == value_type::integer || col.type == value_type::real;
}

std::vector<std::size_t> visible_columns(result_table const& t, view v) {
  std::vector<std::size_t> cols;
  for (std::size_t j = 0; j < t.columns.size(); ++j)
    if (t.columns[j].views & v) cols.push_back(j);
  return cols;
}

std::vector<std::size_t> text_order_columns(result_table const& t, view v) {
  auto cols = visible_columns(t, v);
  std::stable_partition(cols.begin(), cols.end(),
                        [&](std::size_t j) { return !t.columns[j].text_last; });
  return cols;
}

std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
  auto const* p = reinterpret_cast<unsigned char const*>(s.data());
  unsigned char const c = p[i];
  if (c < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1Fu;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0Fu;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07u;
  if (len == 0 || i + len > s.size()) return 0;
  for (std::size_t j = 1; j < len; ++j) {
    if ((p[i + j] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i + j] & 0x3Fu);
  }
  if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
  if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
  return len;
}

std::string json_string(std::string_view s) {
  return '"' + rewrite_utf8(s, "\\ufffd", append_json_escaped) + '"';
}

}  // namespace tracesweep::output
