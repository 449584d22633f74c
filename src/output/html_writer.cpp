// SPDX-License-Identifier: Apache-2.0
// HTML: one self-contained page. No network (a Content-Security-Policy forbids every fetch), no
// script, no external font (a system font stack). For each table html shows (see view): its
// heading, its chart (svg_charts.cpp: inline SVG with axes, ticks, axis titles with units and a
// legend), then its rows as an HTML table, cells as text shows them. Every string is escaped
// (html_text.cpp) and bytes that are not valid UTF-8 become U+FFFD.
#include <tracesweep/output/writer.hpp>

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

#include "output/html_text.hpp"
#include "output/render.hpp"
#include "output/svg_charts.hpp"

namespace tracesweep::output {

namespace {

using html_page::escape;
using html_page::header;
using html_page::length;
using html_page::short_text;
using html_page::write_chart;

// ---- tables ----------------------------------------------------------------------------------

void write_rows(std::string& o, result_table const& t, std::vector<column> const& columns,
                bool nested);

/// Text cells longer than this may wrap (anywhere: kernel names have few spaces); shorter ones
/// keep their spaces and stay on one line.
constexpr std::size_t long_cell = 40;
/// Text cells longer than this are cut (short_text), the whole text in the cell's title: a
/// megabyte name would otherwise be laid out whole.
constexpr std::size_t cut_cell = 240;

/// A cell: as text shows it; nested rows as a small table.
void write_cell(std::string& o, cell const& c, column const& col) {
  if (auto const* n = std::get_if<std::shared_ptr<result_table const>>(&c);
      n && (*n)->shape != json_shape::list && (*n)->shape != json_shape::map &&
      row_count(**n) > 0) {
    o += "<td class=\"nest\">";
    write_rows(o, **n, (*n)->columns, true);
    o += "</td>";
    return;
  }
  auto const text = text_cell(c, col);
  auto const chars = length(text);
  if (chars > cut_cell && !right_aligned(col)) {
    o +=
        "<td class=\"long\" title=\"" + escape(text) + "\">" + short_text(text, cut_cell) + "</td>";
    return;
  }
  o += right_aligned(col)  ? "<td class=\"num\">"
       : chars > long_cell ? "<td class=\"long\">"
                           : "<td>";
  o += escape(text);
  o += "</td>";
}

/// A table's rows as an HTML table: the columns html shows, in text's order, each as `columns`
/// says (shown_columns; a nested table on no lines of its own).
void write_rows(std::string& o, result_table const& t, std::vector<column> const& columns,
                bool nested) {
  auto const cols = text_order_columns(t, html);
  char const* const end_row = nested ? "</tr>" : "</tr>\n";
  o += nested ? "<table class=\"nested\"><thead><tr>" : "<table class=\"rows\"><thead><tr>";
  for (auto j : cols)
    o += (right_aligned(columns[j]) ? "<th class=\"num\">" : "<th>") + escape(header(columns[j])) +
         "</th>";
  o += nested ? "</tr></thead><tbody>" : "</tr></thead><tbody>\n";
  for_each_row(t, [&](row const& r) {
    o += "<tr>";
    for (auto j : cols) write_cell(o, r.cells[j], columns[j]);
    o += end_row;
  });
  o += "</tbody></table>";
}

void write_table(std::string& o, result_table const& t, write_options const& options) {
  auto const& title = t.title.empty() ? t.name : t.title;
  o += fmt::format("<section id=\"{}\">\n<h2>{} <span class=\"count\">{} {}</span></h2>\n",
                   escape(t.name), escape(title), row_count(t), row_count(t) == 1 ? "row" : "rows");
  if (row_count(t) == 0) {
    o += "<p class=\"none\">" + escape(t.text_empty.empty() ? "none" : t.text_empty) + "</p>\n";
  } else {
    if (t.plot.kind != chart_kind::none) write_chart(o, t);
    if (!t.plot.chart_only || t.plot.kind == chart_kind::none) {
      o += "<div class=\"scroll\">";
      write_rows(o, t, shown_columns(t, options), false);
      o += "</div>\n";
    }
  }
  o += "</section>\n";
}

constexpr std::string_view style = R"(
:root { color-scheme: light; }
body { margin: 24px 32px; color: #1f2933; background: #fff; font-size: 14px; line-height: 1.4;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Liberation Sans", "DejaVu Sans", sans-serif; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
h2 .count { color: #6b7280; font-weight: normal; font-size: 13px; margin-left: 6px; }
p.none, p.note { color: #6b7280; font-style: italic; margin: 4px 0; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; text-align: left;
  vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; white-space: nowrap; }
td { white-space: pre; }
td.long { white-space: pre-wrap; overflow-wrap: anywhere; min-width: 30ch; max-width: 70ch; }
td.nest { white-space: normal; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.rows > tbody > tr:nth-child(even) { background: #fafbfc; }
table.nested { font-size: 12px; }
table.nested th, table.nested td { padding: 1px 6px; }
figure.chart { margin: 0 0 14px; }
svg { max-width: 100%; height: auto; font-family: inherit; }
svg text { font-size: 11px; fill: #374151; }
svg text.title { font-size: 12px; fill: #111827; }
svg .axis { stroke: #6b7280; stroke-width: 1; }
svg .grid { stroke: #e5e7eb; stroke-width: 1; }
svg .line { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; }
)";

}  // namespace

void write_html(result_set const& results, std::string_view table, std::ostream& out,
                write_options const& options) {
  auto const tables = tables_for(results, html, table);
  std::string const title = !tables.empty() && !tables.front()->title.empty()
                                ? tables.front()->title
                                : "tracesweep report";
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<title>" + escape(title) + "</title>\n<style>" + std::string(style) + "</style>\n";
  o += "</head>\n<body>\n<h1>tracesweep report</h1>\n";
  out << o;
  for (auto const* t : tables) {
    o.clear();
    write_table(o, *t, options);
    out << o;
  }
  if (tables.empty()) out << "<p class=\"none\">none</p>\n";
  out << "</body>\n</html>\n";
  out.flush();
}

}  // namespace tracesweep::output
