// SPDX-License-Identifier: Apache-2.0
// Maps every error that reaches the command line to one line and an exit code. Library errors
// are typed and name no option; this is where they are mapped to the options they came from.
#include <cctype>
#include <new>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include <tracesweep/error.hpp>
#include <tracesweep/output/safe_text.hpp>

#include "cli/app.hpp"

namespace tracesweep::cli {

namespace {

int say(std::ostream& err, std::string const& line, exit_code code) {
  err << error_line(line) << '\n';
  return static_cast<int>(code);
}

}  // namespace

std::string error_line(std::string_view message) {
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
    message.remove_suffix(1);
  return "tracesweep: " + output::terminal_text(message);
}

int report_error(std::exception_ptr e, std::string_view where, std::ostream& err) {
  std::string const at = where.empty() ? std::string() : std::string(where) + ": ";
  try {
    std::rethrow_exception(e);
  } catch (input_limit_error const& x) {
    bool const events = x.which() == input_limit_error::limit::event_bytes;
    return say(err,
               std::string(x.what()) + " (the limit; raise it with " +
                   (events ? "--max-event-bytes" : "--max-inflate-ratio") + " N)",
               exit_code::bad_input);
  } catch (input_error const& x) {
    return say(err, x.what(), exit_code::bad_input);
  } catch (pattern_error const& x) {
    // The CLI checks each pattern option as it parses it (regex_check), naming the option; a
    // pattern from elsewhere names no option.
    return say(err, x.what(), exit_code::usage);
  } catch (backend_unavailable const& x) {
    return say(err, std::string("--backend cuda: ") + x.what(), exit_code::bad_input);
  } catch (device_error const& x) {
    std::string line = at + x.what();
    if (x.out_of_memory())
      line += " (set it with --device-memory-limit BYTES, or use --backend cpu)";
    return say(err, line, exit_code::bad_input);
  } catch (usage_error const& x) {
    return say(err, x.what(), exit_code::usage);
  } catch (CLI::ParseError const& x) {
    return say(err, x.what(), exit_code::usage);
  } catch (std::bad_alloc const&) {
    return say(err, at + "out of memory", exit_code::bad_input);
  } catch (std::overflow_error const& x) {
    return say(err, at + "arithmetic overflow: " + x.what(), exit_code::bad_input);
  } catch (std::exception const& x) {
    return say(err, at + x.what(), exit_code::bad_input);
  } catch (...) {
    return say(err, at + "unknown error", exit_code::bad_input);
  }
}

}  // namespace tracesweep::cli
