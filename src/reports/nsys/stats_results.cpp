// SPDX-License-Identifier: Apache-2.0
// nsys stats tables → result tables: nsys's columns, each rounded as nsys prints it in every
// format (1 decimal for Time (%), Avg, Med, StdDev; MB = 10^6 B with 3 decimals for sizes).
#include <tracesweep/reports/nsys/stats_results.hpp>

#include <memory>
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
result_table stats_columns(stats_report r, unsigned views) {
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

std::vector<cell> cells_of(stats_table const& s, std::size_t i, bool with_file) {
  std::vector<cell> cells;
  for (auto const& c : stats::columns_of(s.report)) cells.push_back(value(s.rows[i], c));
  if (with_file) cells.emplace_back(s.source);
  return cells;
}

}  // namespace

output::result_set stats_results(std::vector<stats_table> tables) {
  auto const kept = std::make_shared<std::vector<stats_table> const>(std::move(tables));
  auto l = std::make_shared<stats::per_input_layout>();
  l->tables = kept->size();
  auto const report = kept->empty() ? stats_report::cuda_gpu_kern_sum : kept->front().report;
  l->columns = [report](unsigned views) { return stats_columns(report, views); };
  l->rows = [kept](std::size_t k) { return (*kept)[k].rows.size(); };
  l->cells = [kept](std::size_t k, std::size_t i, bool several) {
    return cells_of((*kept)[k], i, several);
  };
  l->title = [kept](std::size_t k) {
    auto const& s = (*kept)[k];
    return std::string(stats_report_title(s.report)) + " (" + std::string(to_string(s.report)) +
           "): " + s.source;
  };
  l->empty_text = "(no rows: no events of this kind in the input, or none the filters kept)";
  l->several_columns = {{"File", value_type::string}};
  l->json_keys = {{"report", value_type::string}, {"source", value_type::string}};
  l->json_cells = [kept](std::size_t k) {
    return std::vector<cell>{std::string(to_string((*kept)[k].report)), (*kept)[k].source};
  };
  return stats::per_input_results(std::move(l));
}

}  // namespace tracesweep
