// SPDX-License-Identifier: Apache-2.0
// nsys stats tables → result tables: nsys's columns, each rounded as nsys prints it in every
// format (1 decimal for Time (%), Avg, Med, StdDev; MB = 10^6 B with 3 decimals for sizes).
#include <tracesweep/reports/nsys/stats_results.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"
#include "reports/nsys/stats_columns.hpp"

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
  switch (c.source) {
    case field::style:
      return row.style;
    case field::grid:
      return row.grid;
    case field::block:
      return row.block;
    default:
      return row.name;
  }
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
        t.add(std::string(c.header), value_type::string).symbol = c.header == "Name";
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
  stats::per_input_layout l;
  l.tables = tables.size();
  auto const report = tables.empty() ? stats_report::cuda_gpu_kern_sum : tables.front().report;
  l.columns = [report](unsigned views) { return columns(report, views); };
  l.add_rows = [&](result_table& t, std::size_t k, bool several) {
    add_rows(t, tables[k], several);
  };
  l.title = [&](std::size_t k) {
    auto const& s = tables[k];
    return std::string(stats_report_title(s.report)) + " (" + std::string(to_string(s.report)) +
           "): " + s.source;
  };
  l.empty_text = "(no rows: no events of this kind in the input, or none the filters kept)";
  l.several_columns = {{"File", value_type::string}};
  l.json_keys = {{"report", value_type::string}, {"source", value_type::string}};
  l.json_cells = [&](std::size_t k) {
    return std::vector<cell>{std::string(to_string(tables[k].report)), tables[k].source};
  };
  return stats::per_input_results(l);
}

}  // namespace tracesweep
