// SPDX-License-Identifier: Apache-2.0
// Reading inputs into the event table. The format is detected from the content, never the name;
// each format has its own reader (ingest/…) behind this one entry point.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

namespace tracesweep {

enum class input_format { unknown, nsys_sqlite, chrome_json };

/// Which of a kernel's names goes into the name column (nsys exports carry all three; Chrome
/// traces carry one, used for every choice).
enum class kernel_naming { demangled, base, mangled };

struct read_options {
  unsigned threads = 0;  ///< 0 = all hardware threads
  /// Rank for a file that does not name its own (Chrome traces without distributedInfo): the
  /// file's 0-based index among the inputs sorted by path. -1 = 0.
  std::int32_t fallback_rank = -1;
  kernel_naming kernel_names = kernel_naming::demangled;
};

/// Looks at the first bytes of `path` (gzip is looked through). Throws input_error when the
/// file cannot be opened.
[[nodiscard]] input_format detect_format(std::string const& path);

/// Reads one file into `table`. A fatal defect throws input_error and leaves `table` as it
/// was before the call.
void read_input(std::string const& path, event_table& table, read_options const& options);

/// Reads every input (directories expanded, files taken in path order) into `table`.
/// Without `keep_going` the first fatal error is thrown; with it each failing file is left out,
/// its error returned, and reading goes on. Two Chrome traces claiming one rank are an error.
std::vector<input_error> read_inputs(std::vector<std::string> const& paths, event_table& table,
                                     read_options const& options, bool keep_going);

/// Expands directories into the files in them (sorted by path), keeps files as given.
[[nodiscard]] std::vector<std::string> expand_inputs(std::vector<std::string> const& paths);

}  // namespace tracesweep
