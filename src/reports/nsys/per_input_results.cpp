// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/per_input_results.hpp"

#include <utility>

namespace tracesweep::stats {

output::result_set per_input_results(per_input_layout const& l) {
  output::result_set set;
  set.json_bare = true;
  for (std::size_t k = 0; k < l.tables; ++k) {
    auto t = l.columns(output::text | output::html);
    t.title = l.title(k);
    t.style = output::text_style::report;
    t.text_empty = l.empty_text;
    l.add_rows(t, k, false);
    set.tables.push_back(std::move(t));
  }
  if (l.tables > 0) {
    bool const several = l.tables > 1;
    auto all = l.columns(output::flat);
    if (several)
      for (auto const& [name, type] : l.several_columns) all.add(name, type);
    for (std::size_t k = 0; k < l.tables; ++k) l.add_rows(all, k, several);
    set.tables.push_back(std::move(all));
  }
  output::result_table reports;
  reports.name = "reports";
  reports.views = output::json;
  for (auto const& [name, type] : l.json_keys) reports.add(name, type);
  reports.add("rows", output::value_type::nested);
  for (std::size_t k = 0; k < l.tables; ++k) {
    auto rows = l.columns(output::all_views);
    l.add_rows(rows, k, false);
    auto cells = l.json_cells(k);
    cells.push_back(output::nest(std::move(rows)));
    reports.add_row(std::move(cells));
  }
  set.tables.push_back(std::move(reports));
  return set;
}

output::result_table report_table(std::string name, unsigned views) {
  output::result_table t;
  t.name = std::move(name);
  t.views = views;
  return t;
}

void add_number(output::result_table& t, std::string name, output::value_type type,
                std::string unit) {
  auto& c = t.add(std::move(name), type, std::move(unit));
  c.fixed = true;
  c.thousands = true;
  if (type == output::value_type::real) c.decimals = 1;
}

}  // namespace tracesweep::stats
