// SPDX-License-Identifier: Apache-2.0
// The result set every nsys-style report prints: text (and HTML) one titled table per input,
// CSV one header over every input's rows (with trailing columns such as File when there are
// several), JSON an array of {report keys…, rows}.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::stats {

struct per_input_layout {
  std::size_t tables = 0;
  /// The report's columns for `views`, without rows.
  std::function<output::result_table(unsigned views)> columns;
  /// Adds table k's rows; with `several`, CSV's trailing cells too (several_columns).
  std::function<void(output::result_table&, std::size_t k, bool several)> add_rows;
  std::function<std::string(std::size_t k)> title;
  std::string empty_text;
  /// CSV columns after the report's when there are several tables.
  std::vector<std::pair<std::string, output::value_type>> several_columns;
  /// JSON: the keys before "rows" and table k's values for them.
  std::vector<std::pair<std::string, output::value_type>> json_keys;
  std::function<std::vector<output::cell>(std::size_t k)> json_cells;
};

[[nodiscard]] output::result_set per_input_results(per_input_layout const& l);

/// An empty table named `name` shown in `views`.
[[nodiscard]] output::result_table report_table(std::string name, unsigned views);

/// Adds a number column as nsys prints them: published as computed (`fixed`), thousands
/// separators in text, one decimal for reals; `unit` "ns", "bytes" or "" (a count).
void add_number(output::result_table& t, std::string name, output::value_type type,
                std::string unit);

/// The common case: tables with a `source` (the input) and `rows`, titled "TITLE (REPORT):
/// SOURCE", a File column in CSV with several tables, JSON {report, source, rows}; `cells(row)`
/// gives a row's cells in the order of `columns`.
template <class Table, class Columns, class Cells>
[[nodiscard]] output::result_set report_per_input(std::vector<Table> const& tables,
                                                  std::string const& report,
                                                  std::string const& title,
                                                  std::string const& empty_text, Columns columns,
                                                  Cells cells) {
  per_input_layout l;
  l.tables = tables.size();
  l.columns = columns;
  l.add_rows = [&](output::result_table& t, std::size_t k, bool several) {
    for (auto const& row : tables[k].rows) {
      std::vector<output::cell> c = cells(row);
      if (several) c.emplace_back(tables[k].source);
      t.add_row(std::move(c));
    }
  };
  l.title = [&](std::size_t k) { return title + " (" + report + "): " + tables[k].source; };
  l.empty_text = empty_text;
  l.several_columns = {{"File", output::value_type::string}};
  l.json_keys = {{"report", output::value_type::string}, {"source", output::value_type::string}};
  l.json_cells = [&](std::size_t k) { return std::vector<output::cell>{report, tables[k].source}; };
  return per_input_results(l);
}

}  // namespace tracesweep::stats
