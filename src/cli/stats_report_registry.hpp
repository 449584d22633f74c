// SPDX-License-Identifier: Apache-2.0
// The registry of `tracesweep stats` reports: one entry per report — its name, the options it
// takes after the name, what it reads of the inputs, and how it computes its result tables from
// the job session. --report's choices, its help text and its errors come from this list.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <tracesweep/input_reader.hpp>
#include <tracesweep/output/result_table.hpp>
#include <tracesweep/reports/nsys/gpu_rules.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep::cli {

/// One --report value, parsed: the entry's name and the options given after it.
struct report_spec {
  std::string text;  ///< as given, for messages
  std::optional<kernel_naming> naming;
  bool nvtx_name = false;  ///< cuda_gpu_kern_sum:nvtx-name
  gpu_gaps_options gaps;
  gpu_time_util_options util;
};

/// What every report is computed with besides the session.
struct report_call {
  report_spec const& spec;
  bool merge = false;  ///< one table over all inputs
};

struct report_entry {
  std::string_view name;
  /// The options after the name as --help lists them ("[:gap=MS][:rows=N]"); empty: none.
  std::string_view options_usage;
  /// Whether --help lists the bare name besides the usage with options.
  bool listed_bare = true;
  /// Applies one option (the text between two colons); null for a report that takes none.
  void (*apply_option)(report_spec& spec, std::string_view option) = nullptr;
  /// What the report reads: event kinds and the readers' optional side data.
  void (*reads)(report_spec const& spec, read_options& options) = nullptr;
  /// Whether --name (demangled, base or mangled kernel names) applies.
  bool kernel_names = false;
  /// Why --merge is refused (a report that prints one table per input); empty: accepted.
  std::string_view no_merge;
  output::result_set (*compute)(job_session const& session, report_call const& call) = nullptr;
};

/// Every report, in --help order.
[[nodiscard]] std::span<report_entry const> report_entries();

/// The entry and spec of a --report value NAME[:OPTION…]; an unknown name or option is a
/// usage_error naming --report.
[[nodiscard]] std::pair<report_entry const*, report_spec> parse_report(std::string const& text);

/// --report's help: every report and the options each takes.
[[nodiscard]] std::string report_help();

/// A usage_error "--report TEXT: WHY".
[[noreturn]] void refuse_report(std::string const& text, std::string const& why);

}  // namespace tracesweep::cli
