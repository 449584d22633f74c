// SPDX-License-Identifier: Apache-2.0
// Why a result is empty: the warnings of empty_result_notes.hpp.
#include "cli/empty_result_notes.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "cli/app.hpp"

namespace tracesweep::cli {

namespace {

constexpr char const* gpu_operations_named = "GPU operations (kernels, memcpys, memsets)";

/// The categories of rows [first, end) as "C1 n1, C2 n2, …", most rows first, at most `shown`.
std::string categories_of(event_table const& table, std::pair<std::size_t, std::size_t> rows,
                          std::size_t shown = 6) {
  std::map<string_id, std::size_t> counts;
  for (auto i = rows.first; i < rows.second; ++i) ++counts[table.category[i]];
  std::vector<std::pair<std::size_t, string_id>> by_count;
  for (auto const& [category, n] : counts) by_count.emplace_back(n, category);
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](auto const& a, auto const& b) { return a.first > b.first; });
  std::string out;
  for (std::size_t k = 0; k < std::min(shown, by_count.size()); ++k) {
    auto const& name = table.strings().at(by_count[k].second);
    out += fmt::format("{}{} {}", k ? ", " : "", name.empty() ? "(no category)" : name,
                       by_count[k].first);
  }
  if (by_count.size() > shown) out += fmt::format(", and {} more", by_count.size() - shown);
  return out;
}

void warn(std::ostream& err, std::string const& line) {
  err << error_line("warning: " + line) << '\n';
}

}  // namespace

rows_read count_rows(event_table const& table) {
  rows_read n;
  n.rows = table.size();
  for (auto const kind : table.kind) n.gpu_operations += is_device_activity(kind) ? 1 : 0;
  return n;
}

void note_inputs_without_gpu_operations(event_table const& table, std::ostream& err) {
  auto const& inputs = table.inputs();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].device_events() > 0) continue;
    auto const rows = table.input_rows(k);
    auto const events = rows.second - rows.first;
    if (events == 0) {
      warn(err, fmt::format("{}: no {}, nor other events this command reads", inputs[k].path,
                            gpu_operations_named));
      continue;
    }
    warn(err, fmt::format("{}: no {} among the {} events read from it ({})", inputs[k].path,
                          gpu_operations_named, events, categories_of(table, rows)));
  }
}

void note_what_the_filters_kept(rows_read before, rows_read after, bool gpu_read,
                                std::string const& filters, std::ostream& err) {
  if (after.rows == 0) {
    warn(err, fmt::format("the filters ({}) kept 0 of {} rows: every table is empty", filters,
                          before.rows));
    return;
  }
  if (gpu_read && before.gpu_operations > 0 && after.gpu_operations == 0)
    warn(err, fmt::format("the filters ({}) kept {} of {} rows but none of the {} {}: the device "
                          "tables are empty",
                          filters, after.rows, before.rows, before.gpu_operations,
                          gpu_operations_named));
}

}  // namespace tracesweep::cli
