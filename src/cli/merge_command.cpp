// SPDX-License-Identifier: Apache-2.0
// tracesweep merge: shard databases of `scan --shard K/N` into one results store.
#include <fmt/format.h>

#include <tracesweep/fleet/merge.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct merge_args {
  std::string out;
  std::vector<std::string> shards;
};
}  // namespace

void add_merge_command(CLI::App& app, context& ctx) {
  auto const command = add_command<merge_args>(
      app, "merge", "Combine shard results databases (scan --shard K/N) into one");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  cmd->add_option("out", args->out, "The merged database (created when absent)")->required();
  cmd->add_option("shards", args->shards, "Shard databases")->required()->check(CLI::ExistingFile);
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      ctx.phase = "merge";
      auto const r = fleet::merge_stores(args->out, args->shards);
      std::cout << fmt::format(
          "{}: {} runs merged, {} jobs written, {} skipped (already stored), {} traces already "
          "stored\n",
          args->out, r.runs, r.jobs_written, r.jobs_skipped, r.traces_skipped);
      return 0;
    };
  });
}

}  // namespace tracesweep::cli
