// SPDX-License-Identifier: Apache-2.0
// tracesweep summary: the summary contract for any input format.
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/analysis/summary_results.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct summary_args {
  analysis_args common;
  std::string table;
  summary_options options;
};
}  // namespace

void add_summary_command(CLI::App& app, context& ctx) {
  auto const command = add_command<summary_args>(
      app, "summary", "Per-device activity, per-kernel statistics, idle gaps");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  add_analysis_options(cmd, args->common, true);
  cmd->add_option("--table", args->table, "Only this table: devices, kernels, gaps, inputs");
  cmd->add_option("--min-gap", args->options.min_gap_ns, "Shortest idle gap reported, ns")
      ->transform(number_from<std::int64_t>(0))
      ->capture_default_str();
  cmd->add_option("--top", args->options.top, "Gaps reported per device, longest first (0 = all)")
      ->transform(count_validator())
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      read_options reading;
      reading.kinds = gpu_operation_kinds;
      // The streams let the unions merge each stream's kernels instead of sorting a device's.
      reading.correlations = false;
      return ctx.run_analysis(
          args->common, reading, args->table,
          [&](job_session const& session) {
            return summary_results(compute_summary(session, args->options));
          },
          [] { return summary_results(summary{}); }, summary_needs(args->options));
    };
  });
}

}  // namespace tracesweep::cli
