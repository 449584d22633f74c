// SPDX-License-Identifier: Apache-2.0
// Aligned text: each table in its text style (see text_style), columns padded to their widest
// cell, numbers right-aligned, and no padding after the last column.
#include <tracesweep/output/writer.hpp>

#include <algorithm>

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

text_grid layout(result_table const& t) {
  auto const cols = text_order_columns(t, text);
  text_grid g;
  for (auto j : cols) {
    auto const& c = t.columns[j];
    g.header.push_back(c.label.empty() ? c.name : c.label);
    g.right.push_back(right_aligned(c));
    g.width.push_back(g.header.back().size());
  }
  for (auto const& r : t.rows) {
    auto& line = g.cells.emplace_back();
    for (std::size_t k = 0; k < cols.size(); ++k) {
      line.push_back(text_cell(r.cells[cols[k]], t.columns[cols[k]]));
      g.width[k] = std::max(g.width[k], line.back().size());
    }
  }
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

void write_listing(result_table const& t, std::ostream& out) {
  out << t.title << " (" << t.rows.size() << ")\n";
  if (t.rows.empty() && !t.text_empty.empty()) {
    out << "  " << t.text_empty << '\n';
    return;
  }
  auto const g = layout(t);
  out << line(g, g.header, "  ", "") << '\n';
  for (auto const& r : g.cells) out << line(g, r, "  ", "") << '\n';
}

void write_report(result_table const& t, std::ostream& out) {
  out << "** " << t.title << "\n\n";
  if (t.rows.empty() && !t.text_empty.empty()) {
    out << t.text_empty << '\n';
    return;
  }
  auto const g = layout(t);
  std::vector<std::string> dashes;
  for (auto w : g.width) dashes.emplace_back(w, '-');
  out << line(g, g.header, "", "  ") << '\n' << line(g, dashes, "", "  ") << '\n';
  for (auto const& r : g.cells) out << line(g, r, "", "  ") << '\n';
}

void write_grid(result_table const& t, std::ostream& out) {
  auto const g = layout(t);
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
  out << t.title << '\n' << rule << '\n';
  emit(g.header);
  out << rule << '\n';
  for (auto const& r : g.cells) emit(r);
  out << '\n';
}

}  // namespace

void write_text(result_set const& results, std::string_view table, std::ostream& out) {
  bool first = true;
  for (auto const* t : tables_for(results, text, table)) {
    switch (t->style) {
      case text_style::listing:
      case text_style::report:
        if (!first) out << '\n';
        t->style == text_style::listing ? write_listing(*t, out) : write_report(*t, out);
        break;
      case text_style::grid:
        write_grid(*t, out);
        break;
    }
    first = false;
  }
  out.flush();
}

}  // namespace tracesweep::output
