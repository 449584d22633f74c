// SPDX-License-Identifier: Apache-2.0
// The registry of the job tables `tracesweep overview` writes: one entry per table — its name, the
// view it belongs to (Paddle's tables or the TensorBoard plugin's), whether --table all includes
// it, and how it computes its result tables from the job session. --table's choices and the
// "not a table of this command" check come from it; so does the order of the written tables.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/reports/paddle/operator_table.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

enum class job_view : std::uint8_t { paddle, tensorboard };

/// What the job tables are computed with besides the session.
struct job_table_request {
  std::optional<operator_sort> sort;  ///< operators: the sort key (none: the view's default)
};

/// An entry's result tables: the grids text, CSV and HTML show, and the nested tables JSON writes.
/// A result set lists every selected entry's grids before any entry's JSON tables.
struct job_table_output {
  std::vector<output::result_table> grids;
  std::vector<output::result_table> json;
  std::vector<std::string> notes = {};  ///< warnings for standard error (result_set::notes)
};

struct job_table_entry {
  std::string_view name;  ///< its --table value
  job_view view = job_view::paddle;
  bool in_all = false;  ///< part of --table all
  /// More --table values that select it (CSV: the one of its result tables to write).
  std::span<std::string_view const> also = {};
  /// Whether --table names it (operator_detail is chosen by --op-detail instead).
  bool selectable = true;
  /// The result table CSV writes when --table names the entry (empty: the name itself).
  std::string_view csv_table = {};
  job_table_output (*compute)(job_session const& session,
                              job_table_request const& request) = nullptr;
};

/// Every job table, in the order their result tables are written.
[[nodiscard]] std::span<job_table_entry const> job_table_entries();

/// The entry of `view` that --table `name` selects (an `also` name included); null when none.
[[nodiscard]] job_table_entry const* find_job_table(std::string_view name, job_view view);

/// The entries --table `name` selects in `view`: "all" is those in_all; else the one entry.
[[nodiscard]] std::vector<job_table_entry const*> select_job_tables(std::string_view name,
                                                                    job_view view);

/// The result set of `entries` (in registry order): every entry's grids, then the JSON tables.
[[nodiscard]] output::result_set job_table_results(std::span<job_table_entry const* const> entries,
                                                   job_session const& session,
                                                   job_table_request const& request);

}  // namespace tracesweep
