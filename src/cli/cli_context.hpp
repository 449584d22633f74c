// SPDX-License-Identifier: Apache-2.0
// What every subcommand shares: global options, the output stream, the backend, reading inputs.
#pragma once

#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/fleet/job_record.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/row_filter.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>
#include <tracesweep/output/writer.hpp>
#include <tracesweep/session/job_session.hpp>

#include "cli/app.hpp"
#include "cli/number_options.hpp"
#include "cli/output_file.hpp"

namespace tracesweep::cli {

/// What every analysis command takes: inputs, an output format and the communication pattern
/// the trace model classifies kernels with.
struct analysis_args {
  std::vector<std::string> inputs;
  std::string format = "text";
  std::string comm_pattern = "nccl|rccl";
  std::string step_pattern = model_options{}.step_pattern;  ///< diagnose's --step-pattern
  /// The row filters' texts (empty: not given); see filter_of.
  std::string filter_name, time_range, filter_nvtx, ranks, steps;
};

/// The row filter the filter options of `args` ask for; a bad text is a usage_error naming its
/// option (checked before any input is read).
[[nodiscard]] row_filter filter_of(analysis_args const& args);
/// The filter options of `args` as given ("--time-range +0:200ms --ranks 1"), for messages.
[[nodiscard]] std::string filters_as_given(analysis_args const& args);
/// Adds --filter-name, --time-range, --filter-nvtx, --ranks and --steps to `cmd`.
void add_filter_options(CLI::App* cmd, analysis_args& args);

/// An analysis: from the job's session (its model, its backend, what they derive) to the result
/// tables to write.
using analysis_fn = std::function<output::result_set(job_session const&)>;
/// The result tables of an analysis of nothing (every table, no rows): what --table may name,
/// checked before any input is read.
using result_shape_fn = std::function<output::result_set()>;

struct context {
  std::string backend_name = "auto";
  unsigned threads = 0;
  std::string output_path;
  bool verbose = false;
  bool quiet = false;          ///< no progress line
  std::string names = "full";  ///< text: kernel names "full" or "short"
  bool wide = false;           ///< text: never elide names to fit the terminal
  std::string time_unit;       ///< text and HTML: --time-unit (empty: each table's own)
  bool csv_safe = false;       ///< CSV: prefix formula-looking fields with '
  bool keep_going = false;
  std::size_t device_memory_limit = 0;  ///< bytes; 0 = the CUDA backend's default
  std::uint64_t max_event_bytes = default_max_event_bytes;      ///< read_options
  std::uint64_t max_inflate_ratio = default_max_inflate_ratio;  ///< read_options
  rank_source ranks_from = rank_source::claimed;                ///< read_options
  bool keep_duplicates = false;                                 ///< read_options
  /// Sets what the global options say of reading (limits, ranks, duplicates) in `options`.
  void set_reading(read_options& options) const;
  /// Set by the chosen subcommand's callback; returns the process exit code.
  std::function<int()> run;
  /// The chosen command's name and what it is doing, for errors that carry no place of their own.
  std::string command;
  std::string phase;
  [[nodiscard]] std::string where() const {
    return phase.empty() ? command : command + ": " + phase;
  }
  hooks const* test_hooks = nullptr;

  /// The backend the options ask for, for an analysis of `table` (logs the choice with -v).
  std::unique_ptr<backend> make_backend(event_table const& table);
  /// The backend the options ask for, made on any thread with the share's threads (analyses
  /// run by fleet scans on worker threads), one of its workers in use at once (each CUDA
  /// backend gets 1/workers of the device memory); logs nothing.
  [[nodiscard]] std::function<std::unique_ptr<backend>(event_table const&, fleet::backend_share)>
  backend_factory() const;
  /// Opens the -o file into `file` now (its writes land on commit); leaves it empty for
  /// standard output.
  void open_output(std::optional<output_file>& file) const;
  /// Reads `paths` into `table`; with --keep-going reports each failed file on stderr and
  /// returns how many failed (0 when all were read).
  int read(std::vector<std::string> const& paths, event_table& table, read_options options = {});
  /// Writes `results` with the writer of `format` to `file` when given, else stdout; `table`
  /// non-empty: only that table. A failed write throws (exit 2). A table the results lack is a
  /// usage error naming --table.
  void write(output::result_set const& results, std::string const& format, std::string const& table,
             output_file* file);
  /// Text's layout: short names with --names short; unless --wide, lines fit $COLUMNS when set,
  /// else the terminal's width when writing to standard output on a terminal.
  [[nodiscard]] output::write_options write_options_for(bool standard_output) const;
  /// The skeleton of every analysis command. Before reading anything it checks the options: the
  /// pattern, -o (never an input, and writable: its file is opened now), and `table` against
  /// `shape` (when given). Then it reads `args.inputs` (reading `options`), builds the model, the
  /// backend and the job session (for `needs`), runs `analyze` and writes its results. An
  /// overflow in the analysis is exit 2 naming the inputs. Returns the exit code: 2 when
  /// --keep-going left a file out, else 0.
  int run_analysis(analysis_args const& args, read_options const& options, std::string const& table,
                   analysis_fn const& analyze, result_shape_fn const& shape = {},
                   activity_needs const& needs = {});
};

/// Registers subcommand `name` with a fresh argument struct that its callbacks share.
template <class Args>
std::pair<std::shared_ptr<Args>, CLI::App*> add_command(CLI::App& app, std::string const& name,
                                                        std::string const& help) {
  return {std::make_shared<Args>(), app.add_subcommand(name, help)};
}

/// Adds --format to `cmd`: one of the registered output formats (text by default); perfetto only
/// on the commands whose results have a timeline (summary, diagnose), else a usage error naming
/// them.
void add_format_option(CLI::App* cmd, std::string& format);
/// Adds the inputs, --format and (when `comm`) --comm-pattern options of an analysis command.
void add_analysis_options(CLI::App* cmd, analysis_args& args, bool comm,
                          std::string const& inputs_help = "Trace files or directories");

/// Ends each command's --help with its examples (command_examples.cpp); after every command.
void add_examples(CLI::App& app);

void add_summary_command(CLI::App& app, context& ctx);
void add_stats_command(CLI::App& app, context& ctx);
void add_generate_command(CLI::App& app, context& ctx);
void add_overview_command(CLI::App& app, context& ctx);
void add_diagnose_command(CLI::App& app, context& ctx);
void add_critical_path_command(CLI::App& app, context& ctx);
void add_scan_command(CLI::App& app, context& ctx);
void add_report_command(CLI::App& app, context& ctx);
void add_diff_command(CLI::App& app, context& ctx);
void add_merge_command(CLI::App& app, context& ctx);

}  // namespace tracesweep::cli
