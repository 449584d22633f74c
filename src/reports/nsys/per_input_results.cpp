// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/per_input_results.hpp"

#include <utility>

namespace tracesweep::stats {

namespace {

/// Makes `t`'s rows as a writer reaches them: rows first..first+count of the concatenation of
/// `tables` (table k's rows after those of the tables before it).
void generate_rows(output::result_table& t, std::shared_ptr<per_input_layout const> const& l,
                   std::vector<std::size_t> tables, bool several) {
  std::vector<std::size_t> first{0};  // first[j]: the first row of tables[j] in `t`
  for (auto const k : tables) first.push_back(first.back() + l->rows(k));
  t.generated_rows = first.back();
  t.generate = [l, tables = std::move(tables), first = std::move(first), several](std::size_t i) {
    auto const j =
        static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) -
        1;
    return output::row{l->cells(tables[j], i - first[j], several)};
  };
}

}  // namespace

output::result_set per_input_results(std::shared_ptr<per_input_layout const> l) {
  output::result_set set;
  set.json_bare = true;
  for (std::size_t k = 0; k < l->tables; ++k) {
    auto t = l->columns(output::text | output::html);
    t.title = l->title(k);
    t.style = output::text_style::report;
    t.text_empty = l->empty_text;
    generate_rows(t, l, {k}, false);
    set.tables.push_back(std::move(t));
  }
  if (l->tables > 0) {
    bool const several = l->tables > 1;
    auto all = l->columns(output::flat);
    if (several)
      for (auto const& [name, type] : l->several_columns) all.add(name, type);
    std::vector<std::size_t> every(l->tables);
    for (std::size_t k = 0; k < every.size(); ++k) every[k] = k;
    generate_rows(all, l, std::move(every), several);
    set.tables.push_back(std::move(all));
  }
  output::result_table reports;
  reports.name = "reports";
  reports.views = output::json;
  for (auto const& [name, type] : l->json_keys) reports.add(name, type);
  reports.add("rows", output::value_type::nested);
  for (std::size_t k = 0; k < l->tables; ++k) {
    auto rows = l->columns(output::all_views);
    generate_rows(rows, l, {k}, false);
    auto cells = l->json_cells(k);
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
