// SPDX-License-Identifier: Apache-2.0
// Aligned text: each table in its text style (see text_style), columns padded to their widest
// cell, numbers right-aligned, and no padding after the last column; symbol columns (kernel
// names) in short form and elided to fit a width when write_options ask. Every string from the
// results is shown as terminal_text: valid UTF-8, control characters escaped.
#include <tracesweep/output/safe_text.hpp>
#include <tracesweep/output/writer.hpp>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

/// The grid of one table as text: header and cells of the columns text shows, in text order.
struct text_grid {
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> width;
};

/// `s` cut to `width` bytes with "..." in the middle (two thirds of the rest kept before it),
/// never inside a UTF-8 sequence.
std::string elide(std::string const& s, std::size_t width) {
  if (s.size() <= width || width < 5) return s;
  auto const keep = width - 3;
  auto head = keep * 2 / 3, tail = s.size() - (keep - head);
  auto continuation = [&](std::size_t i) {
    return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
  };
  while (head > 0 && continuation(head)) --head;
  while (tail < s.size() && continuation(tail)) ++tail;
  return s.substr(0, head) + "..." + s.substr(tail);
}

/// The width of a line of `g` in `style`: listings indent every column by two, reports and grids
/// put two spaces between columns.
std::size_t line_width(text_grid const& g, text_style style) {
  std::size_t w = 0;
  for (auto x : g.width) w += x + 2;
  return style == text_style::listing ? w : (w > 2 ? w - 2 : 0);
}

/// Cuts the cells of column `k` to its width; where two different cells would then read alike,
/// each of them is cut shorter and ends in its number among those alike ("ab...yz #2", numbered
/// in the order of the whole cells).
void elide_column(text_grid& g, std::size_t k) {
  auto const width = g.width[k];
  std::map<std::string, std::set<std::string>> sources;  // cut text → the different cells
  for (auto const& line : g.cells) sources[elide(line[k], width)].insert(line[k]);
  std::set<std::string> alike;
  for (auto const& [cut, cells] : sources)
    if (cells.size() > 1) alike.insert(cells.begin(), cells.end());
  auto const room = 2 + std::to_string(alike.size()).size();  // " #N"
  auto const shorter = [&](std::string const& s) {
    return elide(s, width > room + 5 ? width - room : 5);
  };
  std::map<std::string, std::set<std::string>> numbered;  // shorter cut → the cells alike
  for (auto const& s : alike) numbered[shorter(s)].insert(s);
  for (auto& line : g.cells) {
    if (!alike.contains(line[k])) {
      line[k] = elide(line[k], width);
      continue;
    }
    auto const cut = shorter(line[k]);
    auto const& group = numbered[cut];
    line[k] = cut + " #" + std::to_string(std::distance(group.begin(), group.find(line[k])) + 1);
  }
}

/// Narrows the columns marked in `narrowable` (widest first, to no less than 24 or their header)
/// until lines fit `width`, eliding their cells; other columns keep their width.
void fit_columns(text_grid& g, std::vector<bool> const& narrowable, text_style style,
                 std::size_t width) {
  auto total = line_width(g, style);
  std::vector<bool> cut(g.width.size(), false);
  while (total > width) {
    std::size_t widest = g.width.size();
    for (std::size_t k = 0; k < g.width.size(); ++k) {
      auto const floor = std::max<std::size_t>(24, g.header[k].size());
      if (narrowable[k] && g.width[k] > floor &&
          (widest == g.width.size() || g.width[k] > g.width[widest]))
        widest = k;
    }
    if (widest == g.width.size()) break;
    auto const floor = std::max<std::size_t>(24, g.header[widest].size());
    auto const step = std::min(total - width, g.width[widest] - floor);
    g.width[widest] -= step, total -= step;
    cut[widest] = true;
  }
  for (std::size_t k = 0; k < cut.size(); ++k)
    if (cut[k]) elide_column(g, k);
}

/// Fits lines to `width`: the symbol and elide columns first, then, where lines are still too
/// long, the other string columns (names, paths, verdicts); numbers are never cut.
void fit(text_grid& g, std::vector<bool> const& names, std::vector<bool> const& strings,
         text_style style, std::size_t width) {
  fit_columns(g, names, style, width);
  if (line_width(g, style) > width) fit_columns(g, strings, style, width);
}

/// The unit text shows offsets in: the one asked for, else ms.
std::string offset_unit(write_options const& o) {
  return o.time_unit.empty() ? "ms" : o.time_unit;
}

/// `ns` after `origin` in `unit`, signed: ns exact, us to the ns, ms and s to the µs, rounded
/// half away from zero ("+290.194" ms).
std::string offset_text(std::int64_t ns, std::int64_t origin, std::string const& unit) {
  auto const d = static_cast<__int128>(ns) - origin;  // both within 2^62: no overflow
  char const sign = d < 0 ? '-' : '+';
  auto const a = static_cast<std::int64_t>(d < 0 ? -d : d);
  if (unit == "ns") return fmt::format("{}{}", sign, a);
  if (unit == "us") return fmt::format("{}{}.{:03}", sign, a / 1000, a % 1000);
  auto const us = (a + 500) / 1000;
  if (unit == "ms") return fmt::format("{}{}.{:03}", sign, us / 1000, us % 1000);
  return fmt::format("{}{}.{:06}", sign, us / 1'000'000, us % 1'000'000);
}

/// Whether text shows `c` from `origin`.
bool from_origin(column const& c, std::optional<std::int64_t> origin) {
  return c.timestamp && origin && c.type == value_type::integer;
}

/// The text of every cell of `t` in columns `cols` as `shown` (shown_columns) describes them,
/// offsets from `origin` in `unit`, symbol columns in short form when `o` asks (kept apart:
/// distinct_short_names).
std::vector<std::vector<std::string>> cell_texts(result_table const& t,
                                                 std::vector<column> const& shown,
                                                 std::vector<std::size_t> const& cols,
                                                 write_options const& o,
                                                 std::optional<std::int64_t> origin,
                                                 std::string const& unit) {
  std::vector<std::vector<std::string>> lines;
  for_each_row(t, [&](row const& r) {
    auto& line = lines.emplace_back();
    for (auto const j : cols) {
      auto const& c = shown[j];
      auto const* ns = std::get_if<std::int64_t>(&r.cells[j]);
      line.push_back(from_origin(c, origin) && ns ? offset_text(*ns, *origin, unit)
                                                  : text_cell(r.cells[j], c));
    }
  });
  for (std::size_t k = 0; k < cols.size() && o.short_names; ++k) {
    auto const& c = shown[cols[k]];
    if (!c.symbol || c.type != value_type::string) continue;
    std::vector<std::string> full;
    for (auto const& line : lines) full.push_back(line[k]);
    auto const names = distinct_short_names(full);
    for (std::size_t i = 0; i < lines.size(); ++i) lines[i][k] = names[i];
  }
  return lines;
}

text_grid layout(result_table const& t, write_options const& o,
                 std::optional<std::int64_t> origin) {
  auto const cols = text_order_columns(t, text);
  auto const shown = shown_columns(t, o);
  auto const unit = offset_unit(o);
  text_grid g;
  std::vector<bool> names, strings;
  for (auto j : cols) {
    auto const& c = shown[j];
    g.header.push_back(terminal_text(c.label.empty() ? c.name : c.label));
    if (from_origin(c, origin) && g.header.back().ends_with(" (ns)"))
      g.header.back().replace(g.header.back().size() - 4, 4, "(" + unit + ")");
    g.right.push_back(right_aligned(c));
    g.width.push_back(g.header.back().size());
    names.push_back((c.symbol || c.elide) && c.type == value_type::string);
    strings.push_back(c.type == value_type::string && !names.back());
  }
  g.cells = cell_texts(t, shown, cols, o, origin, unit);
  for (auto& line : g.cells)
    for (std::size_t k = 0; k < cols.size(); ++k) {
      line[k] = terminal_text(line[k]);
      g.width[k] = std::max(g.width[k], line[k].size());
    }
  if (o.width > 0) fit(g, names, strings, t.style, o.width);
  return g;
}

/// One line: cells padded to their column's width, `indent` before each column, `gap` between
/// columns; the last column is not padded on its right.
std::string line(text_grid const& g, std::vector<std::string> const& cells, char const* indent,
                 char const* gap) {
  std::string s;
  for (std::size_t k = 0; k < cells.size(); ++k) {
    bool const last = k + 1 == cells.size();
    std::string const pad(g.width[k] - std::min(g.width[k], cells[k].size()), ' ');
    s += indent;
    if (g.right[k])
      s += pad + cells[k];
    else
      s += cells[k] + (last ? "" : pad);
    if (!last) s += gap;
  }
  return s;
}

void write_listing(result_table const& t, std::ostream& out, write_options const& o,
                   std::optional<std::int64_t> origin) {
  out << terminal_text(t.title) << " (" << row_count(t) / std::max<std::size_t>(1, t.rows_per_entry)
      << ")\n";
  if (row_count(t) == 0 && !t.text_empty.empty()) {
    out << "  " << terminal_text(t.text_empty) << '\n';
    return;
  }
  auto const g = layout(t, o, origin);
  out << line(g, g.header, "  ", "") << '\n';
  for (auto const& r : g.cells) out << line(g, r, "  ", "") << '\n';
}

void write_report(result_table const& t, std::ostream& out, write_options const& o,
                  std::optional<std::int64_t> origin) {
  out << "** " << terminal_text(t.title) << "\n\n";
  if (row_count(t) == 0 && !t.text_empty.empty()) {
    out << terminal_text(t.text_empty) << '\n';
    return;
  }
  auto const g = layout(t, o, origin);
  std::vector<std::string> dashes;
  for (auto w : g.width) dashes.emplace_back(w, '-');
  out << line(g, g.header, "", "  ") << '\n' << line(g, dashes, "", "  ") << '\n';
  for (auto const& r : g.cells) out << line(g, r, "", "  ") << '\n';
}

void write_grid(result_table const& t, std::ostream& out, write_options const& o,
                std::optional<std::int64_t> origin) {
  auto const g = layout(t, o, origin);
  std::size_t total = 0;
  for (auto w : g.width) total += w + 2;
  std::string const rule(total > 2 ? total - 2 : 0, '-');
  auto emit = [&](std::vector<std::string> const& cells) {
    std::string s;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      std::string const pad(g.width[k] - cells[k].size(), ' ');
      s += g.right[k] ? pad + cells[k] : cells[k] + pad;
      if (k + 1 < cells.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  out << terminal_text(t.title) << '\n' << rule << '\n';
  emit(g.header);
  out << rule << '\n';
  for (auto const& r : g.cells) emit(r);
  out << '\n';
}

}  // namespace

void write_text(result_set const& results, std::string_view table, std::ostream& out,
                write_options const& o) {
  bool first = true, origin_told = false;
  auto const origin = results.time_origin_ns;
  for (auto const* t : tables_for(results, text, table)) {
    bool const offsets = std::any_of(t->columns.begin(), t->columns.end(), [&](column const& c) {
      return (from_origin(c, origin) || (c.from_time_origin && origin)) && (c.views & text);
    });
    if (offsets && !origin_told) {  // once, before the first table that needs it
      out << (first ? "" : "\n") << "Times are offsets from "
          << terminal_text(results.time_origin_name) << ", " << *origin
          << " ns on the input's clock.\n";
      origin_told = true;
    }
    switch (t->style) {
      case text_style::listing:
      case text_style::report:
        if (!first) out << '\n';
        t->style == text_style::listing ? write_listing(*t, out, o, origin)
                                        : write_report(*t, out, o, origin);
        break;
      case text_style::grid:
        write_grid(*t, out, o, origin);
        break;
    }
    first = false;
  }
  out.flush();
}

}  // namespace tracesweep::output
