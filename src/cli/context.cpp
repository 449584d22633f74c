// SPDX-License-Identifier: Apache-2.0
#include "cli/cli_context.hpp"
#include "cli/output_file.hpp"

#include <cerrno>
#include <cstring>

#include <tracesweep/error.hpp>
#include <tracesweep/model/comm_classifier.hpp>
#include <tracesweep/output/writer.hpp>

namespace tracesweep::cli {

void context::write(output::result_set const& results, std::string const& format,
                    std::string const& table) {
  auto const write = output::find_writer(format);
  if (!write) throw usage_error("--format " + format + ": unknown format");
  phase = "writing the output";
  try {
    if (output_path.empty()) {
      write(results, table, std::cout);
      std::cout.flush();
      if (!std::cout)
        throw input_error("standard output", "writing the output",
                          "write failed (device full, closed pipe or I/O error)");
      return;
    }
    output_file file(output_path);
    write(results, table, file.stream());
    file.commit();
  } catch (unknown_table_error const& e) {
    std::string expected;
    auto const& valid = e.valid();
    for (std::size_t i = 0; i < valid.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == valid.size() ? " or " : ", ") + valid[i];
    throw usage_error("--table " + e.table() + ": unknown table (expected " + expected + ")");
  }
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
    std::cerr << "tracesweep: " << (why.empty() ? "backend: " + std::string(be->name()) : why)
              << '\n';
  return be;
}

int context::read(std::vector<std::string> const& paths, event_table& table, read_options options) {
  options.threads = threads;
  phase = "reading the inputs";
  auto failures = read_inputs(paths, table, options, keep_going);
  for (auto const& f : failures) std::cerr << "tracesweep: " << f.what() << '\n';
  for (auto const& info : table.inputs()) {
    if (info.skipped.empty()) continue;
    std::int64_t total = 0;
    std::string reasons;
    for (auto const& [reason, n] : info.skipped) {
      total += n;
      reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
    }
    std::cerr << "tracesweep: warning: " << info.path << ": skipped " << total << " events ("
              << reasons << ")\n";
  }
  return static_cast<int>(failures.size());
}

int context::run_analysis(analysis_args const& args, read_options const& options,
                          std::string const& table_name, analysis_fn const& analyze) {
  (void)comm_classifier(args.comm_pattern);  // a bad pattern fails before any input is read
  refuse_output_that_is_an_input(output_path, args.inputs);
  event_table table;
  int const failed = read(args.inputs, table, options);
  if (table.inputs().empty()) throw input_error(args.inputs.front(), "", "no input could be read");
  auto be = make_backend(table);
  trace_model const model(table, {args.comm_pattern});
  write(analyze(model, *be), args.format, table_name);
  return failed ? static_cast<int>(exit_code::bad_input) : 0;
}

void add_analysis_options(CLI::App* cmd, analysis_args& args, bool comm,
                          std::string const& inputs_help) {
  cmd->add_option("inputs", args.inputs, inputs_help)->required();
  add_format_option(cmd, args.format);
  if (comm)
    cmd->add_option("--comm-pattern", args.comm_pattern,
                    "Regex (RE2, case-insensitive) marking communication kernels")
        ->capture_default_str();
}

void add_format_option(CLI::App* cmd, std::string& format) {
  std::vector<std::string> names;
  std::string listed;
  for (auto const& w : output::writers()) {
    names.emplace_back(w.name);
    listed += (listed.empty() ? "" : ", ") + names.back();
  }
  cmd->add_option("--format", format, "Output format: " + listed)
      ->check(CLI::IsMember(names))
      ->capture_default_str();
}

}  // namespace tracesweep::cli
