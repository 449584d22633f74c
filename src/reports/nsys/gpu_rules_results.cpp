// SPDX-License-Identifier: Apache-2.0
// gpu_gaps / gpu_time_util tables → result tables with nsys's columns.
#include <tracesweep/reports/nsys/gpu_rules.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

bool is_util(std::string const& rule) {
  return rule == "gpu_time_util";
}

std::string title_of(std::string const& rule) {
  return is_util(rule) ? "GPU Time Utilization (gpu_time_util)" : "GPU Gaps (gpu_gaps)";
}

result_table columns(std::string const& rule, unsigned views) {
  result_table t;
  t.name = rule;
  t.views = views;
  auto fixed = [&](output::column& c) {
    c.fixed = true;
    return &c;
  };
  t.add("Row#", value_type::integer);
  if (is_util(rule)) fixed(t.add("In-Use (%)", value_type::real, "%"))->decimals = 1;
  fixed(t.add("Duration (ns)", value_type::integer, "ns"))->thousands = true;
  fixed(t.add("Start (ns)", value_type::integer, "ns"))->thousands = true;
  t.add("PID", value_type::integer);
  t.add("Device ID", value_type::integer);
  t.add("Context ID", value_type::integer);
  return t;
}

void add_rows(result_table& t, gpu_rule_table const& g, bool with_file) {
  std::int64_t n = 0;
  for (auto const& r : g.rows) {
    std::vector<cell> cells{++n};
    if (is_util(g.rule)) cells.emplace_back(r.in_use_pct);
    cells.emplace_back(r.duration_ns);
    cells.emplace_back(r.start_ns);
    cells.emplace_back(r.pid);
    cells.emplace_back(std::int64_t{r.device});
    if (r.context)
      cells.emplace_back(*r.context);
    else
      cells.emplace_back();  // no single context
    if (with_file) cells.emplace_back(std::int64_t{g.recipe_rank}), cells.emplace_back(g.source);
    t.add_row(std::move(cells));
  }
}

}  // namespace

output::result_set gpu_rule_results(std::vector<gpu_rule_table> const& tables) {
  stats::per_input_layout l;
  l.tables = tables.size();
  auto const rule = tables.empty() ? std::string("gpu_gaps") : tables.front().rule;
  l.columns = [rule](unsigned views) { return columns(rule, views); };
  l.add_rows = [&](result_table& t, std::size_t k, bool several) {
    add_rows(t, tables[k], several);
  };
  l.title = [&](std::size_t k) { return title_of(tables[k].rule) + ": " + tables[k].source; };
  l.empty_text = is_util(rule) ? "(no rows: no chunk below the threshold)"
                               : "(no rows: no gap longer than the threshold)";
  l.several_columns = {{"Rank", value_type::integer}, {"File", value_type::string}};
  l.json_keys = {
      {"rule", value_type::string}, {"source", value_type::string}, {"rank", value_type::integer}};
  l.json_cells = [&](std::size_t k) {
    auto const& g = tables[k];
    return std::vector<cell>{g.rule, g.source, std::int64_t{g.recipe_rank}};
  };
  return stats::per_input_results(l);
}

}  // namespace tracesweep
