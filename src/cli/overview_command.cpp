// SPDX-License-Identifier: Apache-2.0
// tracesweep overview: Paddle's Overview / Model / Distributed / Kernel summaries and the operator
// table per rank, or the TensorBoard plugin's overview and operator view with --compat tb.
#include <tracesweep/error.hpp>
#include <tracesweep/tables/results.hpp>

#include <algorithm>
#include <iterator>

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

/// Whether --table asks for the memory tables (never part of "all", whose output stays as it
/// was): memory in text, JSON and HTML gives all four; CSV gives the one named.
bool wants_memory(std::string const& t) {
  return std::find(std::begin(memory_table_names), std::end(memory_table_names), t) !=
         std::end(memory_table_names);
}

/// --table must name a table of the chosen view; CSV writes exactly one.
void check_table(overview_args const& a) {
  auto const& t = a.table;
  bool const compat = a.compat == "tb";
  if (compat ? !(t == "all" || t == "tb" || t == "tb_kernels" || t == "operators")
             : !(t == "all" || t == "overview" || t == "model" || t == "distributed" ||
                 t == "kernels" || t == "device" || t == "memcpy" || t == "userdefined" ||
                 t == "perf" || t == "operators" || wants_memory(t)))
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

/// The result table CSV writes: --table names it, but --compat tb's operators are tb_operators.
std::string csv_table(overview_args const& a) {
  if (a.common.format != "csv") return {};
  if (a.op_detail) return "operator_detail";
  return a.compat == "tb" && a.table == "operators" ? "tb_operators" : a.table;
}

operator_sort sort_key(overview_args const& a, operator_sort fallback) {
  return a.sort.empty() ? fallback : *parse_operator_sort(a.sort);
}

job_tables compute_job_tables(overview_args const& a, trace_model const& model, backend& be) {
  job_tables t;
  bool const compat = a.compat == "tb";
  auto want = [&](char const* name) { return !compat && (a.table == "all" || a.table == name); };
  bool const operators = a.table == "operators";  // never part of "all"
  if (compat && !operators) t.has_tb = true, t.tb = compute_tb_overview(model, be);
  if (compat && operators) {
    t.has_tb_operators = true;
    t.tb_operators = compute_tb_operators(model, be, sort_key(a, operator_sort::device_self));
  }
  if (!compat && operators) {
    t.has_operators = true;
    t.operators = compute_operator_table(model, be, sort_key(a, operator_sort::device_total));
  }
  if (a.op_detail) {
    t.has_operator_detail = true;
    t.operator_detail = compute_operator_detail(model, be);
  }
  if (want("overview")) t.has_overview = true, t.overview = compute_overview(model, be);
  if (want("model")) t.has_model = true, t.model = compute_model_summary(model, be);
  if (want("distributed")) t.has_distributed = true, t.distributed = compute_distributed(model, be);
  if (want("kernels")) t.has_kernels = true, t.kernels = compute_kernel_table(model, be);
  // Paddle's other summaries: only when asked for by name (`all` stays the four tables above).
  auto named = [&](char const* name) { return !compat && a.table == name; };
  if (named("device")) t.has_device = true, t.device = compute_device_summary(model, be);
  if (named("memcpy"))
    t.has_memcpy = true,
    t.memcpy = compute_user_range_summary(model, user_range_table::memory_manipulation);
  if (named("userdefined"))
    t.has_userdefined = true,
    t.userdefined = compute_user_range_summary(model, user_range_table::user_defined);
  if (named("perf")) t.has_perf = true, t.perf = compute_perf_summary(model, be);
  if (!compat && wants_memory(a.table))
    t.has_memory = true, t.memory = compute_memory_tables(model);
  return t;
}
}  // namespace

void add_overview_command(CLI::App& app, context& ctx) {
  auto [args, cmd] = add_command<overview_args>(
      app, "overview",
      "Overview, model, distributed, kernel and operator summaries (Paddle's tables), or "
      "--compat tb");
  add_analysis_options(cmd, args->common, true, "Trace files or directories (one job)");
  cmd->add_option("--table", args->table,
                  "overview, model, distributed, kernels or all (these four); device, memcpy, "
                  "userdefined, perf (Paddle's other summaries, each on its own), operators (not "
                  "in all); memory (memory, memory_ops, memory_steps, memory_timeline; not in all; "
                  "CSV: one of them); with --compat tb: tb, operators, or tb_kernels for CSV")
      ->capture_default_str();
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
      return ctx.run_analysis(args->common, {}, csv_table(*args), [&](job_session const& session) {
        return job_results(compute_job_tables(*args, session.model(), session.primitives()));
      });
    };
  });
}

}  // namespace tracesweep::cli
