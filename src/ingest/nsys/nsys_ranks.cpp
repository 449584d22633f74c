// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_ranks.hpp"

#include <tracesweep/recent_keys.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tracesweep::nsys {

namespace {

/// The value of `name` in a `;`-separated NAME=VALUE list, when set.
std::optional<std::string_view> variable(std::string_view environment, std::string_view name) {
  while (!environment.empty()) {
    auto const end = environment.find(';');
    auto const entry = environment.substr(0, end);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
    if (end == std::string_view::npos) break;
    environment.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::int32_t> whole_rank(std::string_view text) {
  std::int32_t value = 0;
  auto const [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

/// The distinct process ids of the current input's rows and memory events, and those of its
/// device rows.
struct processes_read {
  std::set<std::int32_t> all, with_device_rows;
};

processes_read processes_of(event_table const& table, unsigned threads) {
  auto const [first, end] = table.input_rows(table.inputs().size() - 1);
  // Few processes, interleaved (tables in start order) or not: the distinct (process, device
  // row or not) keys.
  auto const keys = distinct_integers<std::int64_t>(first, end, threads, [&](std::size_t i) {
    return std::int64_t{table.rank[i]} * 2 + (is_device_activity(table.kind[i]) ? 1 : 0);
  });
  processes_read out;
  for (auto const key : keys) {
    auto const pid = static_cast<std::int32_t>(key >> 1);  // floor: exact for negative ids too
    out.all.insert(pid);
    if (key & 1) out.with_device_rows.insert(pid);
  }
  auto const [m0, m1] = table.current_input_memory();
  for (auto j = m0; j < m1; ++j) out.all.insert(table.memory.rank[j]);
  return out;
}

}  // namespace

std::optional<std::int32_t> rank_in_environment(std::string_view environment) {
  for (auto const* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (auto const value = variable(environment, name))
      if (auto const rank = whole_rank(*value)) return rank;
  return std::nullopt;
}

std::optional<std::int32_t> launch_rank(connection& db, export_schema const& schema) {
  std::string const table = "TARGET_INFO_SYSTEM_ENV";
  if (!schema.has_column(table, "name") || !schema.has_column(table, "value")) return std::nullopt;
  statement rows(db.get(), db.path(), table,
                 "SELECT value FROM " + quote_identifier(table) +
                     " WHERE name = 'DeviceEnvironment' ORDER BY rowid");
  std::optional<std::int32_t> found;
  while (rows.step()) {
    auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(rows.get(), 0));
    if (!text) continue;
    auto const rank = rank_in_environment(text);
    if (!rank) continue;
    if (found && *found != *rank) return std::nullopt;  // two environments, two ranks
    found = rank;
  }
  return found;
}

std::set<std::int32_t> cuda_processes(connection& db, export_schema const& schema) {
  std::string const table = "TARGET_INFO_CUDA_STREAM";
  std::set<std::int32_t> out;
  if (!schema.has_column(table, "processId")) return out;
  statement rows(db.get(), db.path(), table,
                 "SELECT DISTINCT processId FROM " + quote_identifier(table));
  while (rows.step()) {
    if (sqlite3_column_type(rows.get(), 0) != SQLITE_INTEGER) continue;
    auto const pid = sqlite3_column_int64(rows.get(), 0);
    if (pid >= 0 && pid <= std::numeric_limits<std::int32_t>::max())
      out.insert(static_cast<std::int32_t>(pid));
  }
  return out;
}

void rank_processes(event_table& table, std::optional<std::int32_t> launch,
                    std::set<std::int32_t> const& cuda, unsigned threads) {
  auto const read = processes_of(table, threads);
  if (read.all.empty()) return;
  // The processes with GPU work first: those the export lists with CUDA streams, whichever
  // tables were read, and any other with device rows; then the rest; each by process id.
  std::set<std::int32_t> gpu = cuda;
  gpu.insert(read.with_device_rows.begin(), read.with_device_rows.end());
  std::vector<std::int32_t> order(gpu.begin(), gpu.end());
  for (auto pid : read.all)
    if (!gpu.contains(pid)) order.push_back(pid);
  // The environment's rank, when it names one for the one GPU process and leaves room for the
  // other processes' ranks after it.
  bool const by_environment = launch && gpu.size() == 1 &&
                              *launch <= std::numeric_limits<std::int32_t>::max() -
                                             static_cast<std::int32_t>(order.size() - 1);
  std::int32_t const first = by_environment ? *launch : 0;
  auto& info = table.inputs().back();
  std::vector<std::pair<std::int32_t, std::int32_t>> to;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (!read.all.contains(order[k])) continue;  // a GPU process none of whose rows was read
    auto const rank = first + static_cast<std::int32_t>(k);
    to.emplace_back(order[k], rank);
    info.process_ids[order[k]] = order[k];  // keyed by the rank as read: renumbered below
  }
  std::sort(to.begin(), to.end());
  table.renumber_input_ranks(to, threads);
  info.ranks_numbered_by_reader = !by_environment;
}

}  // namespace tracesweep::nsys
