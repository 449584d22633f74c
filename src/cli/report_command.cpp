// SPDX-License-Identifier: Apache-2.0
// tracesweep report: the fleet tables of one run of a results store.
#include <tracesweep/error.hpp>
#include <tracesweep/fleet/fleet_report.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct report_args {
  std::string db;
  std::string run = "latest";
  std::string format = "text";
  std::string table;
  fleet::report_options options;
};
}  // namespace

void add_report_command(CLI::App& app, context& ctx) {
  auto const command = add_command<report_args>(
      app, "report",
      "Fleet tables of a scan's results store: worst devices, idle by cause, top kernels, "
      "stragglers, verdict changes, failed traces");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  cmd->add_option("--db", args->db, "The results database")->required();
  cmd->add_option("--run", args->run, "latest, previous or a run id")->capture_default_str();
  add_format_option(cmd, args->format);
  cmd->add_option("--table", args->table, "Only this table");
  cmd->add_option("--top", args->options.top, "Rows of the device and kernel tables (0 = all)")
      ->transform(count_validator())
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      std::optional<output_file> file;
      ctx.open_output(file);
      ctx.phase = "report";
      fleet::results_store const store(args->db, true);
      auto const run = store.find_run(args->run);
      if (!run) throw usage_error("--run " + args->run + ": no such run in " + args->db);
      ctx.write(fleet::fleet_report(store, *run, args->options), args->format, args->table,
                file ? &*file : nullptr);
      return 0;
    };
  });
}

}  // namespace tracesweep::cli
