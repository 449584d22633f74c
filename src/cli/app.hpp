// SPDX-License-Identifier: Apache-2.0
// The whole command line as a function: parses, runs the chosen command and turns whatever
// escapes it into one line on `err` and an exit code (the error boundary). main() calls it;
// tests call it with hooks (a backend of their own) to reach paths a real input cannot.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep::cli {

struct hooks {
  /// Replaces the backend the options ask for (tests: a failing device twin).
  std::function<std::unique_ptr<backend>()> make_backend;
  /// A job already read (the Python module's Trace): an analysis command takes the table this
  /// returns for the reading options it would read its inputs with, instead of reading them.
  /// The command's own row filters narrow a copy of it.
  std::function<event_table const&(read_options const&)> job;
  /// Takes an analysis command's results (notes included) instead of its writer and -o.
  std::function<void(output::result_set)> results;
};

/// Runs `tracesweep argv[1…]`; returns the exit code (0, 1 usage, 2 bad input or failure).
int run(int argc, char const* const* argv, std::ostream& err, hooks const& h = {});

/// The error boundary: writes `tracesweep: [PATH: ]WHERE: WHY` for `e` on one line and returns
/// the exit code it maps to. `where` names what was being done when nothing more precise is known.
int report_error(std::exception_ptr e, std::string_view where, std::ostream& err);

/// `tracesweep: MESSAGE` for standard error: trailing whitespace dropped, control characters of
/// trace content escaped (output::terminal_text), so the line is one line and never a terminal
/// command. Every line the tool writes to standard error goes through it.
[[nodiscard]] std::string error_line(std::string_view message);

}  // namespace tracesweep::cli
