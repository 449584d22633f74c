// SPDX-License-Identifier: Apache-2.0
// gpu_gaps / gpu_time_util tables → result tables with nsys's columns.
#include <tracesweep/gpu_rules.hpp>

#include <utility>

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
    cells.emplace_back(std::int64_t{r.rank});
    cells.emplace_back(std::int64_t{r.device});
    cells.emplace_back(r.context ? cell(*r.context) : cell());
    if (with_file) cells.emplace_back(std::int64_t{g.recipe_rank}), cells.emplace_back(g.source);
    t.add_row(std::move(cells));
  }
}

}  // namespace

output::result_set gpu_rule_results(std::vector<gpu_rule_table> const& tables) {
  output::result_set set;
  set.json_bare = true;
  for (auto const& g : tables) {
    auto t = columns(g.rule, output::text | output::html);
    t.title = title_of(g.rule) + ": " + g.source;
    t.style = output::text_style::report;
    t.text_empty = is_util(g.rule) ? "(no rows: no chunk below the threshold)"
                                   : "(no rows: no gap longer than the threshold)";
    add_rows(t, g, false);
    set.tables.push_back(std::move(t));
  }
  if (!tables.empty()) {
    bool const with_file = tables.size() > 1;
    auto all = columns(tables.front().rule, output::flat);
    if (with_file) all.add("Rank", value_type::integer), all.add("File", value_type::string);
    for (auto const& g : tables) add_rows(all, g, with_file);
    set.tables.push_back(std::move(all));
  }
  result_table reports;
  reports.name = "reports";
  reports.views = output::json;
  reports.add("rule", value_type::string);
  reports.add("source", value_type::string);
  reports.add("rank", value_type::integer);
  reports.add("rows", value_type::nested);
  for (auto const& g : tables) {
    auto rows = columns(g.rule, output::all_views);
    add_rows(rows, g, false);
    reports.add_row({g.rule, g.source, std::int64_t{g.recipe_rank}, output::nest(std::move(rows))});
  }
  set.tables.push_back(std::move(reports));
  return set;
}

}  // namespace tracesweep
