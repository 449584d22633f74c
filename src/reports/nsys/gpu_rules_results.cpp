// SPDX-License-Identifier: Apache-2.0
// gpu_gaps / gpu_time_util tables → result tables with nsys's columns.
#include <tracesweep/reports/nsys/gpu_rules.hpp>

#include <memory>
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

result_table rule_columns(std::string const& rule, unsigned views) {
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

std::vector<cell> cells_of(gpu_rule_table const& g, std::size_t i, bool with_file) {
  auto const& r = g.rows[i];
  std::vector<cell> cells{static_cast<std::int64_t>(i + 1)};
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
  return cells;
}

}  // namespace

output::result_set gpu_rule_results(std::vector<gpu_rule_table> tables) {
  auto const kept = std::make_shared<std::vector<gpu_rule_table> const>(std::move(tables));
  auto l = std::make_shared<stats::per_input_layout>();
  l->tables = kept->size();
  auto const rule = kept->empty() ? std::string("gpu_gaps") : kept->front().rule;
  l->columns = [rule](unsigned views) { return rule_columns(rule, views); };
  l->rows = [kept](std::size_t k) { return (*kept)[k].rows.size(); };
  l->cells = [kept](std::size_t k, std::size_t i, bool several) {
    return cells_of((*kept)[k], i, several);
  };
  l->title = [kept](std::size_t k) { return title_of((*kept)[k].rule) + ": " + (*kept)[k].source; };
  l->empty_text = is_util(rule) ? "(no rows: no chunk below the threshold)"
                                : "(no rows: no gap longer than the threshold)";
  l->several_columns = {{"Rank", value_type::integer}, {"File", value_type::string}};
  l->json_keys = {
      {"rule", value_type::string}, {"source", value_type::string}, {"rank", value_type::integer}};
  l->json_cells = [kept](std::size_t k) {
    auto const& g = (*kept)[k];
    return std::vector<cell>{g.rule, g.source, std::int64_t{g.recipe_rank}};
  };
  return stats::per_input_results(std::move(l));
}

}  // namespace tracesweep
