// SPDX-License-Identifier: Apache-2.0
// tracesweep stats --report NAME: the `nsys stats` summary reports, one table per input or
// one over all inputs with --merge.
#include <tracesweep/stats_reports.hpp>
#include <tracesweep/stats_results.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {

/// The event kinds a report is computed from: the reader may leave every other kind unread.
std::uint32_t kinds_of(stats_report r) {
  switch (r) {
    case stats_report::cuda_gpu_kern_sum:
      return kind_bit(event_kind::kernel);
    case stats_report::cuda_gpu_mem_time_sum:
    case stats_report::cuda_gpu_mem_size_sum:
      return kind_bit(event_kind::memcpy) | kind_bit(event_kind::memset);
    case stats_report::cuda_api_sum:
      return kind_bit(event_kind::api_call);
    case stats_report::nvtx_sum:
      return kind_bit(event_kind::user_range);
    case stats_report::osrt_sum:
      return kind_bit(event_kind::os_call);
  }
  return all_event_kinds;
}

struct stats_args {
  analysis_args common;
  std::string report;
  std::string names = "demangled";
  bool merge = false;
};
}  // namespace

void add_stats_command(CLI::App& app, context& ctx) {
  std::vector<std::string> reports;
  for (auto r : all_stats_reports) reports.emplace_back(to_string(r));
  auto [args, cmd] = add_command<stats_args>(app, "stats", "nsys-stats-compatible summary reports");
  add_analysis_options(cmd, args->common, false);
  cmd->add_option("--report", args->report, "Report to compute")
      ->required()
      ->check(CLI::IsMember(reports));
  cmd->add_option("--name", args->names,
                  "Kernel names: demangled, base (shortName) or mangled (nsys exports)")
      ->check(CLI::IsMember({"demangled", "base", "mangled"}))
      ->capture_default_str();
  cmd->add_flag("--merge", args->merge, "One table over all inputs instead of one per input");
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto const report = *parse_stats_report(args->report);
      read_options options;
      options.kinds = kinds_of(report);
      if (args->names == "base") options.kernel_names = kernel_naming::base;
      if (args->names == "mangled") options.kernel_names = kernel_naming::mangled;
      return ctx.run_analysis(args->common, options, "", [&](auto const& model, auto& be) {
        return stats_results(compute_stats_report(model, be, report, args->merge));
      });
    };
  });
}

}  // namespace tracesweep::cli
