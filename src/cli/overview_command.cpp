// SPDX-License-Identifier: Apache-2.0
// tracesweep overview: Paddle's Overview / Model / Distributed / Kernel summaries per rank, or the
// TensorBoard plugin's overview with --compat tb.
#include <tracesweep/error.hpp>
#include <tracesweep/output_format.hpp>
#include <tracesweep/tables/results.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct overview_args {
  std::vector<std::string> inputs;
  std::string table = "all";
  std::string compat;
  std::string format = "text";
  std::string comm_pattern = "nccl|rccl";
};
}  // namespace

void add_overview_command(CLI::App& app, context& ctx) {
  auto args = std::make_shared<overview_args>();
  auto* cmd = app.add_subcommand(
      "overview",
      "Overview, model, distributed and kernel summaries (Paddle's tables), or --compat tb");
  cmd->add_option("inputs", args->inputs, "Trace files or directories (one job)")->required();
  cmd->add_option("--table", args->table,
                  "overview, model, distributed, kernels or all (with --compat tb: tb or "
                  "tb_kernels for CSV)")
      ->capture_default_str();
  cmd->add_option("--compat", args->compat, "tb: the TensorBoard profiler plugin's overview")
      ->check(CLI::IsMember({"tb"}));
  add_format_option(cmd, args->format);
  cmd->add_option("--comm-pattern", args->comm_pattern,
                  "Regex (case-insensitive) marking communication kernels (non-Paddle inputs)")
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto const format = *parse_output_format(args->format);
      auto const& tb = args->table;
      bool const compat = args->compat == "tb";
      if (compat ? !(tb == "all" || tb == "tb" || tb == "tb_kernels")
                 : !(tb == "all" || tb == "overview" || tb == "model" || tb == "distributed" ||
                     tb == "kernels"))
        throw usage_error("--table " + tb + ": not a table of this command" +
                          (compat ? " with --compat tb" : ""));
      if (format == output_format::csv && tb == "all")
        throw usage_error("--format csv writes one table: give --table");
      event_table table;
      int const failed = ctx.read(args->inputs, table);
      if (table.inputs().empty())
        throw input_error(args->inputs.front(), "", "no input could be read");
      auto be = ctx.make_backend(table);
      trace_model const model(table, {args->comm_pattern});
      job_tables t;
      auto want = [&](char const* name) { return !compat && (tb == "all" || tb == name); };
      if (compat) t.has_tb = true, t.tb = compute_tb_overview(model, *be);
      if (want("overview")) t.has_overview = true, t.overview = compute_overview(model, *be);
      if (want("model")) t.has_model = true, t.model = compute_model_summary(model, *be);
      if (want("distributed"))
        t.has_distributed = true, t.distributed = compute_distributed(model, *be);
      if (want("kernels")) t.has_kernels = true, t.kernels = compute_kernel_table(model, *be);
      ctx.write(job_results(t), args->format, format == output_format::csv ? tb : "");
      return failed ? static_cast<int>(exit_code::bad_input) : 0;
    };
  });
}

}  // namespace tracesweep::cli
