// SPDX-License-Identifier: Apache-2.0
#include "cli/cli_context.hpp"
#include "cli/empty_result_notes.hpp"
#include "cli/output_file.hpp"
#include "cli/pattern_options.hpp"
#include "cli/progress_line.hpp"
#include "cli/read_progress_line.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <tracesweep/error.hpp>
#include <tracesweep/output/writer.hpp>

namespace tracesweep::cli {

namespace {

/// The format that draws a timeline, and the commands whose results have one to draw.
constexpr std::string_view timeline_format = "perfetto";
constexpr std::array<std::string_view, 3> timeline_commands{"summary", "diagnose", "critical-path"};

/// Runs `write` and turns a table the results lack into the usage error naming --table.
template <class Write>
void naming_the_table(Write&& write) {
  try {
    write();
  } catch (unknown_table_error const& e) {
    std::string expected;
    auto const& valid = e.valid();
    for (std::size_t i = 0; i < valid.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == valid.size() ? " or " : ", ") + valid[i];
    throw usage_error("--table " + e.table() + ": unknown table (expected " + expected + ")");
  }
}

/// The writer of `format`, or the usage error.
output::write_function writer_of(std::string const& format) {
  auto const write = output::find_writer(format);
  if (!write) throw usage_error("--format " + format + ": unknown format");
  return write;
}

}  // namespace

output::write_options context::write_options_for(bool standard_output) const {
  output::write_options o;
  o.short_names = names == "short";
  o.csv_safe = csv_safe;
  o.time_unit = time_unit;
  if (wide) return o;
  if (char const* env = std::getenv("COLUMNS"); env && *env) {
    auto const n = std::strtol(env, nullptr, 10);
    if (n > 0) o.width = static_cast<std::size_t>(n);
    return o;
  }
  winsize size{};
  if (standard_output && isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0)
    o.width = size.ws_col;
  return o;
}

void context::write(output::result_set const& results, std::string const& format,
                    std::string const& table, output_file* file) {
  auto const write = writer_of(format);
  phase = "writing the output";
  naming_the_table([&] {
    if (file) {
      write(results, table, file->stream(), write_options_for(false));
      file->commit();
      return;
    }
    write(results, table, std::cout, write_options_for(true));
    std::cout.flush();
    if (!std::cout)
      throw input_error("standard output", "writing the output",
                        "write failed (device full, closed pipe or I/O error)");
  });
}

std::unique_ptr<backend> context::make_backend(event_table const& table) {
  phase = "analysis";
  if (test_hooks && test_hooks->make_backend) return test_hooks->make_backend();
  backend_request request;
  if (backend_name == "cpu") request.choice = backend_choice::cpu;
  if (backend_name == "cuda") request.choice = backend_choice::cuda;
  request.threads = threads;
  request.work_rows = table.size();
  request.device_memory_limit = device_memory_limit;
  std::string why;
  auto be = tracesweep::make_backend(request, &why);
  if (verbose)
    std::cerr << error_line(why.empty() ? "backend: " + std::string(be->name()) : why) << '\n';
  return be;
}

std::function<std::unique_ptr<backend>(event_table const&, fleet::backend_share)>
context::backend_factory() const {
  auto const choice = backend_name == "cuda"  ? backend_choice::cuda
                      : backend_name == "cpu" ? backend_choice::cpu
                                              : backend_choice::automatic;
  auto const limit = device_memory_limit;
  return [choice, limit](event_table const& table, fleet::backend_share share) {
    backend_request request;
    request.choice = choice;
    request.threads = share.threads;
    request.workers = share.workers;
    request.work_rows = table.size();
    request.device_memory_limit = limit;
    return tracesweep::make_backend(request);
  };
}

void context::open_output(std::optional<output_file>& file) const {
  if (!output_path.empty()) file.emplace(output_path);
}

void context::set_reading(read_options& options) const {
  options.max_event_bytes = max_event_bytes;
  options.max_inflate_ratio = max_inflate_ratio;
  options.ranks_from = ranks_from;
  options.keep_duplicates = keep_duplicates;
}

namespace {

/// One line per input that skipped events, with why and how many; duplicates say how to keep
/// them.
void warn_of_skipped_events(event_table const& table) {
  for (auto const& info : table.inputs()) {
    if (info.skipped.empty()) continue;
    std::int64_t total = 0;
    std::string reasons;
    for (auto const& [reason, n] : info.skipped) {
      total += n;
      reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
    }
    bool const duplicates = info.skipped.contains(std::string(skip_duplicate_event));
    std::cerr << error_line(fmt::format("warning: {}: skipped {} events ({}){}", info.path, total,
                                        reasons,
                                        duplicates ? "; --keep-duplicates keeps duplicates" : ""))
              << '\n';
  }
}

/// `ns` in the unit that reads best for clocks far apart: hours, days or years.
std::string far_apart(std::int64_t ns) {
  double const hours = static_cast<double>(ns) / 3.6e12;
  if (hours < 48) return fmt::format("{:.1f} hours", hours);
  if (hours < 24 * 730) return fmt::format("{:.1f} days", hours / 24);
  return fmt::format("{:.1f} years", hours / (24 * 365.25));
}

/// One line per input whose clock lies more than an hour from the other inputs' of the job.
void warn_of_clocks_apart(event_table const& table) {
  for (auto const& o : find_clock_outliers(table, clock_outlier_threshold_ns)) {
    auto const& info = table.inputs()[o.input];
    bool const chrome = info.format.find("json") != std::string::npos;
    std::cerr << error_line(fmt::format(
                     "warning: {}: its times lie {} from the other inputs' of the job: likely {}, "
                     "so times across ranks do not compare",
                     info.path, far_apart(o.apart_ns),
                     chrome ? "a missing baseTimeNanoseconds (times relative to the trace's start)"
                            : "a clock of its own (nsys counts from its session's start)"))
              << '\n';
  }
}

}  // namespace

int context::read(std::vector<std::string> const& paths, event_table& table, read_options options) {
  options.threads = threads;
  set_reading(options);
  phase = "reading the inputs";
  read_progress progress;
  options.progress = &progress;
  std::vector<input_error> failures;
  {
    progress_line line(read_progress_text(progress), !quiet && isatty(STDERR_FILENO) == 1,
                       progress_delay());
    failures = read_inputs(paths, table, options, keep_going);
  }
  for (auto const& f : failures) std::cerr << error_line(f.what()) << '\n';
  warn_of_skipped_events(table);
  warn_of_clocks_apart(table);
  return static_cast<int>(failures.size());
}

namespace {

/// The inputs of a job in a message: the one path, or the first and how many more.
std::string job_name(event_table const& table) {
  auto const& inputs = table.inputs();
  if (inputs.size() == 1) return inputs.front().path;
  return inputs.front().path + " (and " + std::to_string(inputs.size() - 1) + " more inputs)";
}

}  // namespace

namespace {

/// The event kinds `f` reads besides those an analysis asks the reader for: user ranges for an
/// NVTX filter, profiler steps for a step filter, every kind for a relative time range.
std::uint32_t kinds_read_by(row_filter const& f) {
  std::uint32_t kinds = 0;
  if (f.nvtx) kinds |= kind_bit(event_kind::user_range);
  if (f.steps) kinds |= kind_bit(event_kind::profiler_step);
  return f.relative_time() ? all_event_kinds : kinds;
}

/// The job an analysis command runs on: `own`, read from the inputs as the command asks and
/// narrowed by the row filter, or the table the job hook supplies.
event_table const& job_table(context& ctx, analysis_args const& args, read_options const& reading,
                             row_filter const& filter, event_table& own, int& failed) {
  if (ctx.test_hooks && ctx.test_hooks->job) {
    // The supplier applied the job's filters when it read it.
    if (!filter.empty()) throw usage_error("row filters narrow a job when it is read");
    ctx.phase = "reading the inputs";
    return ctx.test_hooks->job(reading);
  }
  failed = ctx.read(args.inputs, own, reading);
  if (own.inputs().empty()) throw input_error(args.inputs.front(), "", "no input could be read");
  bool const gpu_read = (reading.kinds & gpu_operation_kinds) != 0;
  if (gpu_read) note_inputs_without_gpu_operations(own, std::cerr);
  if (!filter.empty()) {
    auto const before = count_rows(own);
    apply_row_filter(own, filter);
    note_what_the_filters_kept(before, count_rows(own), gpu_read, filters_as_given(args),
                               std::cerr);
  }
  return own;
}

}  // namespace

int context::run_analysis(analysis_args const& args, read_options const& options,
                          std::string const& table_name, analysis_fn const& analyze,
                          result_shape_fn const& shape, activity_needs const& needs) {
  auto const filter = filter_of(args);
  if (!table_name.empty() && shape) {
    std::ostringstream discard;
    naming_the_table([&] { writer_of(args.format)(shape(), table_name, discard, {}); });
  }
  bool const to_hook = test_hooks && test_hooks->results;
  std::optional<output_file> file;
  if (!to_hook) {
    refuse_output_that_is_an_input(output_path, args.inputs);
    open_output(file);
  }
  auto reading = options;
  if (reading.kinds != all_event_kinds) reading.kinds |= kinds_read_by(filter);
  event_table own;
  int failed = 0;
  auto const& table = job_table(*this, args, reading, filter, own, failed);
  auto be = make_backend(table);
  output::result_set results;
  try {
    model_options mo;
    mo.comm_pattern = args.comm_pattern;
    mo.step_pattern = args.step_pattern;
    mo.threads = threads;
    trace_model const model(table, mo);
    job_session const session(model, *be, needs);
    results = analyze(session);
  } catch (std::overflow_error const& e) {
    // A result that cannot be represented is a property of the data: name what was read.
    throw input_error(job_name(table), "", std::string("arithmetic overflow: ") + e.what());
  } catch (std::bad_alloc const&) {
    throw input_error(job_name(table), where(), "out of memory");
  }
  if (to_hook) {
    test_hooks->results(std::move(results));
    return failed ? static_cast<int>(exit_code::bad_input) : 0;
  }
  for (auto const& note : results.notes) std::cerr << error_line("warning: " + note) << '\n';
  write(results, args.format, table_name, file ? &*file : nullptr);
  return failed ? static_cast<int>(exit_code::bad_input) : 0;
}

void add_analysis_options(CLI::App* cmd, analysis_args& args, bool comm,
                          std::string const& inputs_help) {
  cmd->add_option("inputs", args.inputs, inputs_help)->required();
  add_format_option(cmd, args.format);
  if (comm)
    cmd->add_option("--comm-pattern", args.comm_pattern,
                    "Regex (RE2, case-insensitive) marking communication kernels")
        ->check(regex_check())
        ->capture_default_str();
  add_filter_options(cmd, args);
}

void add_filter_options(CLI::App* cmd, analysis_args& args) {
  auto* g = cmd->add_option_group("Filters", "Narrow the trace before any analysis");
  g->add_option("--filter-name", args.filter_name,
                "Keep only kernels and operators whose name this regex (RE2, case-sensitive) "
                "finds; other rows stay")
      ->check(regex_check(true));
  g->add_option("--time-range", args.time_range,
                "START:END in ns (suffix us, ms, s; +N: from the trace start, and after +START, "
                "END counts from the trace start too; either side may be empty): keep rows "
                "overlapping [START, END), not clipped");
  g->add_option("--filter-nvtx", args.filter_nvtx,
                "NAME[@DOMAIN][/INSTANCE]: keep rows overlapping that NVTX range or user "
                "annotation, per rank (all instances, or instance N from 0)");
  g->add_option("--ranks", args.ranks, "Keep only these ranks: 0,2,5-7");
  g->add_option("--steps", args.steps,
                "A:B: keep rows overlapping profiler steps A to B of each rank (from 0)");
}

row_filter filter_of(analysis_args const& args) {
  row_filter f;
  f.name_pattern = args.filter_name;
  if (!args.time_range.empty()) f.time_range = parse_time_range(args.time_range, "--time-range");
  if (!args.filter_nvtx.empty()) f.nvtx = parse_nvtx_filter(args.filter_nvtx, "--filter-nvtx");
  if (!args.ranks.empty()) f.ranks = parse_rank_list(args.ranks, "--ranks");
  if (!args.steps.empty()) f.steps = parse_step_range(args.steps, "--steps");
  return f;
}

std::string filters_as_given(analysis_args const& args) {
  std::string out;
  for (auto const& [option, text] :
       {std::pair{"--filter-name", &args.filter_name}, std::pair{"--time-range", &args.time_range},
        std::pair{"--filter-nvtx", &args.filter_nvtx}, std::pair{"--ranks", &args.ranks},
        std::pair{"--steps", &args.steps}})
    if (!text->empty()) out += fmt::format("{}{} {}", out.empty() ? "" : " ", option, *text);
  return out;
}

void add_format_option(CLI::App* cmd, std::string& format) {
  bool const timeline =
      std::ranges::find(timeline_commands, cmd->get_name()) != timeline_commands.end();
  std::vector<std::string> names;
  for (auto const& w : output::writers())
    if (timeline || w.name != timeline_format) names.emplace_back(w.name);
  auto const without_timeline = CLI::Validator(
      [](std::string& value) {
        if (value != timeline_format) return std::string();
        std::string commands;
        for (std::size_t i = 0; i < timeline_commands.size(); ++i)
          commands += std::string(i == 0                              ? ""
                                  : i + 1 == timeline_commands.size() ? " and "
                                                                      : ", ") +
                      std::string(timeline_commands[i]);
        return fmt::format("{} draws a timeline, which only {} have", value, commands);
      },
      "", "timeline");
  auto* option =
      cmd->add_option("--format", format, fmt::format("Output format: {}", fmt::join(names, ", ")));
  if (!timeline) option->check(without_timeline);
  option->check(CLI::IsMember(names))->capture_default_str();
}

}  // namespace tracesweep::cli
