// SPDX-License-Identifier: Apache-2.0
// tracesweep <command> [options] inputs…: the parser, the commands and the error boundary.
#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>

#include <map>

#include <tracesweep/build_info.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/version.hpp>

#include "cli/cli_context.hpp"
#include "cli/number_options.hpp"

namespace tracesweep::cli {

namespace {

/// The command word of `argv` (the first token that is neither an option nor the value of a
/// global option taking one), or empty.
std::string command_word(int argc, char const* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view const a = argv[i];
    if (a == "--backend" || a == "--threads" || a == "-o" || a == "--output" || a == "--names" ||
        a == "--time-unit" || a == "--device-memory-limit") {
      ++i;
      continue;
    }
    if (!a.starts_with('-')) return std::string(a);
  }
  return {};
}

/// Names an unknown or missing command, listing the commands: CLI11 says only "A subcommand is
/// required" for both.
int report_command_error(CLI::App const& app, int argc, char const* const* argv,
                         std::ostream& err) {
  std::string names;
  for (auto const* sub : app.get_subcommands({}))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  auto const word = command_word(argc, argv);
  std::string const what =
      word.empty() ? "a command is required" : "unknown command '" + word + "'";
  return report_error(std::make_exception_ptr(usage_error(what + " (expected " + names + ")")), "",
                      err);
}

/// --version: the version, the CUDA backend as built, and every library with its version.
std::string version_text() {
  auto libraries = reader_library_versions();
  libraries.push_back(regex_library_version());
  libraries.push_back({"fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                                          FMT_VERSION % 100)});
  libraries.push_back({"CLI11", CLI11_VERSION});
  std::string text = fmt::format("tracesweep {}\nCUDA backend: {}\nlibraries:", version_string,
                                 cuda_build_description());
  for (std::size_t i = 0; i < libraries.size(); ++i)
    text += fmt::format("{} {} {}", i ? "," : "", libraries[i].name, libraries[i].version);
  return text;
}

/// The options before the command: backend, threads, output, text and CSV details, input
/// limits, ranks, duplicates, --keep-going.
void add_global_options(CLI::App& app, context& ctx) {
  app.add_option("--backend", ctx.backend_name, "Analysis backend: auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--threads", ctx.threads, "Worker threads (0 = all hardware threads)")
      ->capture_default_str();
  app.add_option("-o,--output", ctx.output_path, "Write the result to FILE instead of stdout");
  app.add_flag("-v,--verbose", ctx.verbose, "Say which backend runs and what was skipped");
  app.add_option("--names", ctx.names,
                 "Text: kernel names in full, or short (without return type, template arguments, "
                 "parameters and namespaces, as nsys's shortName)")
      ->check(CLI::IsMember({"full", "short"}))
      ->capture_default_str();
  app.add_option("--time-unit", ctx.time_unit,
                 "Text and HTML: every time column and offset in this unit, named in its header "
                 "(default: each table's own, ms where it names none); JSON and CSV keep integer "
                 "ns")
      ->check(CLI::IsMember({"ns", "us", "ms", "s"}));
  app.add_flag("--wide", ctx.wide,
               "Text: never elide kernel names to fit $COLUMNS or the terminal's width");
  app.add_flag("--csv-safe", ctx.csv_safe,
               "CSV: prefix a field that starts with =, +, - or @ (and is not a number) with ', "
               "so that a spreadsheet does not run it as a formula");
  app.add_flag("-q,--quiet", ctx.quiet,
               "No progress line while reading (shown only on a terminal)");
  app.add_option("--device-memory-limit", ctx.device_memory_limit,
                 "Bytes of GPU memory the process may use (split among scan's workers); larger "
                 "work is chunked (cuda)");
  app.add_option("--max-event-bytes", ctx.max_event_bytes,
                 "JSON: longest event (or used top-level value) held in memory, bytes")
      ->transform(number_from<std::uint64_t>(1))
      ->capture_default_str();
  app.add_option("--max-inflate-ratio", ctx.max_inflate_ratio,
                 "gzip: most bytes inflated per compressed byte (a decompression bomb beyond)")
      ->transform(number_from<std::uint64_t>(1))
      ->capture_default_str();
  app.add_option("--ranks-from", ctx.ranks_from,
                 "Tell apart inputs claiming one rank: path (the rank number in each file's "
                 "name, as rank-3.json) or order (inputs numbered in the order given)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, rank_source>{
          {"path", rank_source::path}, {"order", rank_source::order}}));
  app.add_flag("--keep-duplicates", ctx.keep_duplicates,
               "Keep duplicated events (same kind, name, start, end, device or thread and "
               "correlation in one input) instead of dropping them");
  app.add_flag("--keep-going", ctx.keep_going,
               "Report a file that cannot be read and go on with the others");
  app.fallthrough();
}

}  // namespace

int run(int argc, char const* const* argv, std::ostream& err, hooks const& h) {
  CLI::App app{"tracesweep: GPU-accelerated analytics for Nsight Systems, Kineto and Paddle traces",
               "tracesweep"};
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  context ctx;
  ctx.test_hooks = &h;
  add_global_options(app, ctx);

  add_summary_command(app, ctx);
  add_stats_command(app, ctx);
  add_generate_command(app, ctx);
  add_overview_command(app, ctx);
  add_diagnose_command(app, ctx);
  add_critical_path_command(app, ctx);
  add_scan_command(app, ctx);
  add_report_command(app, ctx);
  add_diff_command(app, ctx);
  add_merge_command(app, ctx);
  add_examples(app);
  validate_numbers(app);

  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::RequiredError const&) {
    if (app.get_subcommands().empty()) return report_command_error(app, argc, argv, err);
    return report_error(std::current_exception(), "", err);
  } catch (CLI::ParseError const&) {
    return report_error(std::current_exception(), "", err);
  }

  for (auto const* sub : app.get_subcommands()) ctx.command = sub->get_name();
  try {
    return ctx.run ? ctx.run() : static_cast<int>(exit_code::usage);
  } catch (...) {
    return report_error(std::current_exception(), ctx.where(), err);
  }
}

}  // namespace tracesweep::cli
