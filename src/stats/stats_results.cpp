// SPDX-License-Identifier: Apache-2.0
// nsys stats tables → result tables: nsys's columns, each rounded as nsys prints it in every
// format (1 decimal for Time (%), Avg, Med, StdDev; MB = 10^6 B with 3 decimals for sizes).
#include <tracesweep/stats_results.hpp>

#include <utility>

#include "stats/stats_columns.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;
using stats::field;

/// A number as the column publishes it: sizes in MB, the rest as they are.
template <typename T>
cell number(T v, stats::column const& c) {
  if (c.format == stats::cell::megabytes) return static_cast<double>(v) / 1e6;
  return v;
}

/// Where each numeric field is in a row.
constexpr std::pair<field, std::int64_t stats_row::*> integers[] = {
    {field::total, &stats_row::total},
    {field::count, &stats_row::count},
    {field::min, &stats_row::min},
    {field::max, &stats_row::max}};
constexpr std::pair<field, double stats_row::*> reals[] = {
    {field::time_percent, &stats_row::time_percent},
    {field::avg, &stats_row::avg},
    {field::median, &stats_row::median},
    {field::stddev, &stats_row::stddev}};

cell value(stats_row const& row, stats::column const& c) {
  for (auto [f, at] : integers)
    if (f == c.source) return number(row.*at, c);
  for (auto [f, at] : reals)
    if (f == c.source) return number(row.*at, c);
  return c.source == field::style ? row.style : row.name;
}

/// The report's columns, without rows.
result_table columns(stats_report r, unsigned views) {
  result_table t;
  t.name = std::string(to_string(r));
  t.views = views;
  for (auto const& c : stats::columns_of(r)) {
    bool const ns = c.source != field::count && c.source != field::time_percent;
    switch (c.format) {
      case stats::cell::text:
        t.add(std::string(c.header), value_type::string);
        continue;
      case stats::cell::integer:
        t.add(std::string(c.header), value_type::integer, ns ? "ns" : "");
        break;
      case stats::cell::decimal1:
        t.add(std::string(c.header), value_type::real, ns ? "ns" : "%").decimals = 1;
        break;
      case stats::cell::megabytes:
        t.add(std::string(c.header), value_type::real, "MB").decimals = 3;
        break;
    }
    t.columns.back().fixed = true;
    t.columns.back().thousands = true;
  }
  return t;
}

void add_rows(result_table& t, stats_table const& s, bool with_file) {
  auto const cols = stats::columns_of(s.report);
  for (auto const& r : s.rows) {
    std::vector<cell> cells;
    for (auto const& c : cols) cells.push_back(value(r, c));
    if (with_file) cells.emplace_back(s.source);
    t.add_row(std::move(cells));
  }
}

}  // namespace

output::result_set stats_results(std::vector<stats_table> const& tables) {
  output::result_set set;
  set.json_bare = true;
  // Text (and the HTML page): one titled table per input.
  for (auto const& s : tables) {
    auto t = columns(s.report, output::text | output::html);
    t.title = std::string(stats_report_title(s.report)) + " (" + std::string(to_string(s.report)) +
              "): " + s.source;
    t.style = output::text_style::report;
    t.text_empty = "(no rows: no events of this kind in the input, or none the filters kept)";
    add_rows(t, s, false);
    set.tables.push_back(std::move(t));
  }
  // CSV: every input's rows under one header, with the input in File when there are several.
  if (!tables.empty()) {
    bool const with_file = tables.size() > 1;
    auto all = columns(tables.front().report, output::flat);
    if (with_file) all.add("File", value_type::string);
    for (auto const& s : tables) add_rows(all, s, with_file);
    set.tables.push_back(std::move(all));
  }
  // JSON: [{report, source, rows}].
  result_table reports;
  reports.name = "reports";
  reports.views = output::json;
  reports.add("report", value_type::string);
  reports.add("source", value_type::string);
  reports.add("rows", value_type::nested);
  for (auto const& s : tables) {
    auto rows = columns(s.report, output::all_views);
    add_rows(rows, s, false);
    reports.add_row({std::string(to_string(s.report)), s.source, output::nest(std::move(rows))});
  }
  set.tables.push_back(std::move(reports));
  return set;
}

}  // namespace tracesweep
