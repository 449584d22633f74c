// SPDX-License-Identifier: Apache-2.0
// tracesweep summary: the summary contract for any input format.
#include <tracesweep/error.hpp>
#include <tracesweep/summary.hpp>
#include <tracesweep/summary_results.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct summary_args {
  std::vector<std::string> inputs;
  std::string format = "text";
  std::string table;
  summary_options options;
  std::string comm_pattern = "nccl|rccl";
};
}  // namespace

void add_summary_command(CLI::App& app, context& ctx) {
  auto args = std::make_shared<summary_args>();
  auto* cmd =
      app.add_subcommand("summary", "Per-device activity, per-kernel statistics, idle gaps");
  cmd->add_option("inputs", args->inputs, "Trace files or directories")->required();
  add_format_option(cmd, args->format);
  cmd->add_option("--table", args->table, "Only this table: devices, kernels, gaps, inputs");
  cmd->add_option("--comm-pattern", args->comm_pattern,
                  "Regex (case-insensitive) marking communication kernels")
      ->capture_default_str();
  cmd->add_option("--min-gap", args->options.min_gap_ns, "Shortest idle gap reported, ns")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--top", args->options.top, "Gaps reported per device, longest first (0 = all)")
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      event_table table;
      int const failed = ctx.read(args->inputs, table);
      if (table.inputs().empty())
        throw input_error(args->inputs.front(), "", "no input could be read");
      auto be = ctx.make_backend(table);
      auto s = compute_summary(trace_model(table, {args->comm_pattern}), *be, args->options);
      ctx.write(summary_results(s), args->format, args->table);
      return failed ? static_cast<int>(exit_code::bad_input) : 0;
    };
  });
}

}  // namespace tracesweep::cli
