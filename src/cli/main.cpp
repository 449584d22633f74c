// SPDX-License-Identifier: Apache-2.0
// tracesweep <command> [options] inputs…
#include <iostream>

#include <CLI/CLI.hpp>

#include <tracesweep/error.hpp>
#include <tracesweep/version.hpp>

#include "cli/cli_context.hpp"

int main(int argc, char** argv) {
  using namespace tracesweep;
  CLI::App app{"tracesweep: GPU-accelerated analytics for Nsight Systems, Kineto and Paddle traces",
               "tracesweep"};
  app.set_version_flag("--version", std::string("tracesweep ") + version_string);
  app.require_subcommand(1);
  cli::context ctx;
  app.add_option("--backend", ctx.backend_name, "Analysis backend: auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--threads", ctx.threads, "Worker threads (0 = all hardware threads)")
      ->capture_default_str();
  app.add_option("-o,--output", ctx.output_path, "Write the result to FILE instead of stdout");
  app.add_flag("-v,--verbose", ctx.verbose, "Say which backend runs and what was skipped");
  app.add_option("--device-memory-limit", ctx.device_memory_limit,
                 "Bytes of GPU memory one primitive may use; larger work is chunked (cuda)");
  app.add_flag("--keep-going", ctx.keep_going,
               "Report a file that cannot be read and go on with the others");
  app.fallthrough();

  cli::add_summary_command(app, ctx);
  cli::add_stats_command(app, ctx);
  cli::add_generate_command(app, ctx);
  cli::add_overview_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    app.exit(e);
    return static_cast<int>(exit_code::usage);
  }

  try {
    return ctx.run ? ctx.run() : static_cast<int>(exit_code::usage);
  } catch (input_error const& e) {
    std::cerr << "tracesweep: " << e.what() << '\n';
    return static_cast<int>(exit_code::bad_input);
  } catch (backend_unavailable const& e) {
    std::cerr << "tracesweep: " << e.what() << '\n';
    return static_cast<int>(exit_code::bad_input);
  } catch (pattern_error const& e) {
    std::cerr << "tracesweep: --comm-pattern " << e.what() << '\n';
    return static_cast<int>(exit_code::usage);
  } catch (usage_error const& e) {
    std::cerr << "tracesweep: " << e.what() << '\n';
    return static_cast<int>(exit_code::usage);
  } catch (std::bad_alloc const&) {
    std::cerr << "tracesweep: out of memory\n";
    return static_cast<int>(exit_code::bad_input);
  }
}
