// SPDX-License-Identifier: Apache-2.0
// tracesweep overview: Paddle's Overview / Model / Distributed / Kernel summaries and the operator
// table per rank, or the TensorBoard plugin's overview and operator view with --compat tb.
#include <tracesweep/error.hpp>
#include <tracesweep/reports/job_table_registry.hpp>

#include <string>
#include <vector>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct overview_args {
  analysis_args common;
  std::string table = "all";
  std::string compat;
  std::string sort;  ///< operators: a sort key; empty = device_total (tb: device_self)
  bool op_detail = false;
};

job_view view_of(overview_args const& a) {
  return a.compat == "tb" ? job_view::tensorboard : job_view::paddle;
}

/// --table must name a table of the chosen view (the registry's); CSV writes exactly one.
void check_table(overview_args const& a) {
  auto const& t = a.table;
  bool const compat = a.compat == "tb";
  if (t != "all" && !find_job_table(t, view_of(a)))
    throw usage_error("--table " + t + ": not a table of this command" +
                      (compat ? " with --compat tb" : ""));
  if (a.common.format == "csv" && t == "all")
    throw usage_error("--format csv writes one table: give --table");
  if (!a.sort.empty() && t != "operators") {
    std::string why = "--sort ";
    why += a.sort;
    throw usage_error(why + ": only with --table operators");
  }
  if (a.op_detail && (t != "operators" || compat))
    throw usage_error("--op-detail: only with --table operators (without --compat)");
}

/// The result table CSV writes: the one --table names (the entry's CSV table), or op_detail.
std::string csv_table(overview_args const& a) {
  if (a.common.format != "csv") return {};
  if (a.op_detail) return "operator_detail";
  auto const* e = find_job_table(a.table, view_of(a));
  return e && !e->csv_table.empty() ? std::string(e->csv_table) : a.table;
}

/// The registry's entries --table and --op-detail select.
std::vector<job_table_entry const*> selected_tables(overview_args const& a) {
  auto out = select_job_tables(a.table, view_of(a));
  if (a.op_detail)
    for (auto const& e : job_table_entries())
      if (e.name == "operator_detail") out.push_back(&e);
  return out;
}
/// --table's help from the registry: per view, what all means and the tables named alone.
std::string table_help() {
  std::string help;
  for (auto const view : {job_view::paddle, job_view::tensorboard}) {
    std::string all, alone;
    for (auto const& e : job_table_entries()) {
      if (e.view != view || !e.selectable) continue;
      auto& to = e.in_all ? all : alone;
      to.append(to.empty() ? "" : ", ").append(e.name);
      for (auto const also : e.also) alone.append(alone.empty() ? "" : ", ").append(also);
    }
    help += view == job_view::paddle ? "" : "; with --compat tb: ";
    help += "all (" + all + ")" + (alone.empty() ? "" : ", or one of " + alone + " (not in all)");
  }
  return help + ". CSV writes one table: name it (memory_*: one of the memory tables)";
}
}  // namespace

void add_overview_command(CLI::App& app, context& ctx) {
  auto const command = add_command<overview_args>(
      app, "overview",
      "Overview, model, distributed, kernel and operator summaries (Paddle's tables), or "
      "--compat tb");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  add_analysis_options(cmd, args->common, true, "Trace files or directories (one job)");
  cmd->add_option("--table", args->table, table_help())->capture_default_str();
  std::vector<std::string> const sort_keys(operator_sort_names().begin(),
                                           operator_sort_names().end());
  cmd->add_option("--sort", args->sort,
                  "operators: the column rows are sorted by (default device_total; with --compat "
                  "tb device_self)")
      ->check(CLI::IsMember(sort_keys));
  cmd->add_flag("--op-detail", args->op_detail,
                "operators: add Paddle's op_detail (inner items and device rows per operator; CSV "
                "writes that table)");
  cmd->add_option("--compat", args->compat, "tb: the TensorBoard profiler plugin's overview")
      ->check(CLI::IsMember({"tb"}));
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      check_table(*args);
      job_table_request request;
      if (!args->sort.empty()) request.sort = parse_operator_sort(args->sort);
      auto const tables = selected_tables(*args);
      return ctx.run_analysis(args->common, {}, csv_table(*args), [&](job_session const& session) {
        return job_table_results(tables, session, request);
      });
    };
  });
}

}  // namespace tracesweep::cli
