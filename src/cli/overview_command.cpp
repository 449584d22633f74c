// SPDX-License-Identifier: Apache-2.0
// tracesweep overview: Paddle's Overview / Model / Distributed / Kernel summaries per rank, or the
// TensorBoard plugin's overview with --compat tb.
#include <tracesweep/error.hpp>
#include <tracesweep/tables/results.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct overview_args {
  analysis_args common;
  std::string table = "all";
  std::string compat;
};

/// --table must name a table of the chosen view; CSV writes exactly one.
void check_table(overview_args const& a) {
  auto const& t = a.table;
  bool const compat = a.compat == "tb";
  if (compat ? !(t == "all" || t == "tb" || t == "tb_kernels")
             : !(t == "all" || t == "overview" || t == "model" || t == "distributed" ||
                 t == "kernels" || t == "device" || t == "memcpy" || t == "userdefined" ||
                 t == "perf"))
    throw usage_error("--table " + t + ": not a table of this command" +
                      (compat ? " with --compat tb" : ""));
  if (a.common.format == "csv" && t == "all")
    throw usage_error("--format csv writes one table: give --table");
}

job_tables compute_job_tables(overview_args const& a, trace_model const& model, backend& be) {
  job_tables t;
  bool const compat = a.compat == "tb";
  auto want = [&](char const* name) { return !compat && (a.table == "all" || a.table == name); };
  if (compat) t.has_tb = true, t.tb = compute_tb_overview(model, be);
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
  return t;
}
}  // namespace

void add_overview_command(CLI::App& app, context& ctx) {
  auto [args, cmd] = add_command<overview_args>(
      app, "overview",
      "Overview, model, distributed and kernel summaries (Paddle's tables), or --compat tb");
  add_analysis_options(cmd, args->common, true, "Trace files or directories (one job)");
  cmd->add_option("--table", args->table,
                  "overview, model, distributed, kernels or all (these four); device, memcpy, "
                  "userdefined, perf (Paddle's other summaries, each on its own); with --compat "
                  "tb: tb, or tb_kernels for CSV")
      ->capture_default_str();
  cmd->add_option("--compat", args->compat, "tb: the TensorBoard profiler plugin's overview")
      ->check(CLI::IsMember({"tb"}));
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      check_table(*args);
      std::string const csv_table = args->common.format == "csv" ? args->table : "";
      return ctx.run_analysis(args->common, {}, csv_table, [&](auto const& model, auto& be) {
        return job_results(compute_job_tables(*args, model, be));
      });
    };
  });
}

}  // namespace tracesweep::cli
