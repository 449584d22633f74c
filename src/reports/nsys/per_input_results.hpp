// SPDX-License-Identifier: Apache-2.0
// The result set every nsys-style report prints: text (and HTML) one titled table per input,
// CSV one header over every input's rows (with trailing columns such as File when there are
// several), JSON an array of {report keys…, rows}. Every table's rows are made as a writer reaches
// them (result_table::generate), from the report's own rows: a report that lists millions of rows
// holds them once, not once per view and as cells.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::stats {

/// What per_input_results needs of a report; its functions own (or share) the report's rows, as
/// the result set outlives the call.
struct per_input_layout {
  std::size_t tables = 0;
  /// The report's columns for `views`, without rows.
  std::function<output::result_table(unsigned views)> columns;
  /// Table k's row count.
  std::function<std::size_t(std::size_t k)> rows;
  /// Row i of table k; with `several`, CSV's trailing cells too (several_columns).
  std::function<std::vector<output::cell>(std::size_t k, std::size_t i, bool several)> cells;
  std::function<std::string(std::size_t k)> title;
  std::string empty_text;
  /// CSV columns after the report's when there are several tables.
  std::vector<std::pair<std::string, output::value_type>> several_columns;
  /// JSON: the keys before "rows" and table k's values for them.
  std::vector<std::pair<std::string, output::value_type>> json_keys;
  std::function<std::vector<output::cell>(std::size_t k)> json_cells;
};

[[nodiscard]] output::result_set per_input_results(std::shared_ptr<per_input_layout const> l);

/// An empty table named `name` shown in `views`.
[[nodiscard]] output::result_table report_table(std::string name, unsigned views);

/// Adds a number column as nsys prints them: published as computed (`fixed`), thousands
/// separators in text, one decimal for reals; `unit` "ns", "bytes" or "" (a count).
void add_number(output::result_table& t, std::string name, output::value_type type,
                std::string unit);

/// The common case: tables with a `source` (the input) and `rows`, titled "TITLE (REPORT):
/// SOURCE", a File column in CSV with several tables, JSON {report, source, rows}; `cells(row)`
/// gives a row's cells in the order of `columns`. The result set keeps `tables`.
template <class Table, class Columns, class Cells>
[[nodiscard]] output::result_set report_per_input(std::vector<Table> tables,
                                                  std::string const& report,
                                                  std::string const& title,
                                                  std::string const& empty_text, Columns columns,
                                                  Cells cells) {
  auto const kept = std::make_shared<std::vector<Table> const>(std::move(tables));
  auto l = std::make_shared<per_input_layout>();
  l->tables = kept->size();
  l->columns = columns;
  l->rows = [kept](std::size_t k) { return (*kept)[k].rows.size(); };
  l->cells = [kept, cells](std::size_t k, std::size_t i, bool several) {
    auto const& table = (*kept)[k];
    std::vector<output::cell> c = cells(table.rows[i]);
    if (several) c.emplace_back(table.source);
    return c;
  };
  l->title = [kept, title, report](std::size_t k) {
    return title + " (" + report + "): " + (*kept)[k].source;
  };
  l->empty_text = empty_text;
  l->several_columns = {{"File", output::value_type::string}};
  l->json_keys = {{"report", output::value_type::string}, {"source", output::value_type::string}};
  l->json_cells = [kept, report](std::size_t k) {
    return std::vector<output::cell>{report, (*kept)[k].source};
  };
  return per_input_results(std::move(l));
}

}  // namespace tracesweep::stats
