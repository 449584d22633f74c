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

/// A set of event kinds, as bits (kind_bit) of read_options::kinds.
[[nodiscard]] constexpr std::uint32_t kind_bit(event_kind k) noexcept {
  return std::uint32_t{1} << static_cast<unsigned>(k);
}
inline constexpr std::uint32_t all_event_kinds = (std::uint32_t{1} << event_kind_count) - 1;

struct read_options {
  unsigned threads = 0;  ///< 0 = all hardware threads
  /// Rank for a file that does not name its own (Chrome traces without distributedInfo): the
  /// file's 0-based index among the inputs sorted by path. -1 = 0.
  std::int32_t fallback_rank = -1;
  kernel_naming kernel_names = kernel_naming::demangled;
  /// The event kinds the caller needs (kind_bit set). A reader may leave rows of other kinds
  /// out without reading them (the nsys reader skips whole tables); it may also keep them. The
  /// checks on the file stay the same: an nsys export without GPU activity is an error even
  /// when only host kinds are asked for.
  std::uint32_t kinds = all_event_kinds;
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
