// SPDX-License-Identifier: Apache-2.0
// tracesweep stats --report NAME[:OPTION…]: the `nsys stats` summary reports, one table per
// input or one over all inputs with --merge, and nsys's gpu_gaps and gpu_time_util rules; the
// reports themselves are the entries of stats_report_registry.
#include <string>

#include "cli/cli_context.hpp"
#include "cli/stats_report_registry.hpp"

namespace tracesweep::cli {

namespace {

struct stats_args {
  analysis_args common;
  std::string report;
  std::string names = "demangled";
  bool merge = false;
};

/// The read options of `entry` for `spec`, --name applied where it counts.
read_options reads_of(report_entry const& entry, report_spec& spec, stats_args const& args) {
  if (entry.kernel_names && !spec.naming) {
    if (args.names == "base") spec.naming = kernel_naming::base;
    if (args.names == "mangled") spec.naming = kernel_naming::mangled;
  }
  read_options options;
  entry.reads(spec, options);
  return options;
}

}  // namespace

void add_stats_command(CLI::App& app, context& ctx) {
  auto const command =
      add_command<stats_args>(app, "stats", "nsys-stats-compatible summary reports");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  add_analysis_options(cmd, args->common, false);
  cmd->add_option("--report", args->report, report_help())->required();
  cmd->add_option("--name", args->names,
                  "Kernel names: demangled, base (shortName) or mangled (nsys exports)")
      ->check(CLI::IsMember({"demangled", "base", "mangled"}))
      ->capture_default_str();
  cmd->add_flag("--merge", args->merge, "One table over all inputs instead of one per input");
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto parsed = parse_report(args->report);  // (lambdas below capture both parts)
      auto const* entry = parsed.first;
      auto& spec = parsed.second;
      if (args->merge && !entry->no_merge.empty())
        refuse_report(args->report, std::string(entry->no_merge));
      auto const options = reads_of(*entry, spec, *args);
      return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
        return entry->compute(session, {spec, args->merge});
      });
    };
  });
}

}  // namespace tracesweep::cli
