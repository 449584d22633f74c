// SPDX-License-Identifier: Apache-2.0
// tracesweep generate: a deterministic synthetic training trace, written in one input format.
#include <filesystem>
#include <iostream>

#include <tracesweep/error.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {
struct generate_args {
  std::string format = "nsys-sqlite";
  std::string output;
  synthetic_options options;
};
}  // namespace

void add_generate_command(CLI::App& app, context& ctx) {
  auto [args, cmd] = add_command<generate_args>(
      app, "generate",
      "Write a deterministic synthetic multi-rank training trace (nsys SQLite or Kineto JSON)");
  cmd->add_option("--format", args->format, "nsys-sqlite, kineto-json or kineto-json-gz")
      ->check(CLI::IsMember({"nsys-sqlite", "kineto-json", "kineto-json-gz"}))
      ->capture_default_str();
  cmd->add_option("--ranks", args->options.ranks, "Ranks (processes)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--devices", args->options.devices_per_rank, "GPUs per rank")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--streams", args->options.streams_per_device,
                  "Compute streams per GPU (NCCL gets one more)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--steps", args->options.steps, "Training steps (ignored with --events)")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--kernels-per-step", args->options.kernels_per_step,
                  "Compute kernels per step and GPU")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--events", args->options.target_events,
                  "Approximate total events: as many whole steps as reach it")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  cmd->add_option("--seed", args->options.seed, "Random seed")->capture_default_str();
  cmd->add_option("-o,--output", args->output,
                  "Output file (nsys-sqlite) or path prefix (kineto: PREFIXrank-N.json[.gz])");
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      std::string const path = args->output.empty() ? ctx.output_path : args->output;
      if (path.empty()) throw usage_error("generate: -o PATH is required");
      event_table table;
      generate_synthetic_trace(args->options, table);
      if (ctx.verbose) std::cerr << "tracesweep: generated " << table.size() << " events\n";
      try {
        if (args->format == "nsys-sqlite") {
          write_nsys_sqlite(table, path);
          std::cout << path << '\n';
        } else {
          std::string prefix = path;
          std::error_code ec;
          if (std::filesystem::is_directory(prefix, ec) && prefix.back() != '/') prefix += '/';
          for (auto const& p : write_kineto_json(table, prefix, args->format == "kineto-json-gz"))
            std::cout << p << '\n';
        }
      } catch (std::exception const& e) {
        // The writers report I/O failures as they come (SQLite, zlib, the file system).
        throw usage_error("-o " + path + ": cannot write " + args->format + ": " + e.what());
      }
      return 0;
    };
  });
}

}  // namespace tracesweep::cli
