// SPDX-License-Identifier: Apache-2.0
// Format detection and the one entry point that dispatches to each format's reader.
#include <tracesweep/input_reader.hpp>

#include "ingest/duplicate_events.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <system_error>

namespace tracesweep {

namespace fs = std::filesystem;

std::string_view detect_format(std::string const& path) {
  std::error_code ec;
  auto const st = fs::status(path, ec);
  if (fs::is_directory(st)) throw input_error(path, "", "is a directory");
  // A FIFO, device or socket would block the read below (or never end): refuse it at once.
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw input_error(path, "", "not a regular file (a FIFO, device or socket)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "", std::string("cannot open: ") + std::strerror(errno));
  std::array<char, 64> head{};
  in.read(head.data(), head.size());
  auto const n = static_cast<std::size_t>(in.gcount());
  if (n == 0) throw input_error(path, "byte 0", "empty file");
  for (auto const& r : readers())
    if (r.sniff(std::string_view(head.data(), n))) return r.name;
  return {};
}

void read_input(std::string const& path, event_table& table, read_options const& options) {
  auto const name = detect_format(path);
  for (auto const& r : readers())
    if (r.name == name) return r.read(path, table, options);
  throw input_error(path, "byte 0", "unknown format: neither an SQLite database nor a JSON trace");
}

namespace {

bool looks_like_trace_name(fs::path const& p) {
  auto const name = p.filename().string();
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".sqlite") || ends_with(".json") || ends_with(".json.gz");
}

}  // namespace

std::vector<std::string> expand_inputs(std::vector<std::string> const& paths) {
  std::vector<std::string> out;
  for (auto const& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->is_regular_file(ec) && looks_like_trace_name(it->path()))
        found.push_back(it->path().string());
    }
    if (ec) throw input_error(p, "", "cannot list directory: " + ec.message());
    if (found.empty())
      throw input_error(p, "", "directory holds no .sqlite, .json or .json.gz file");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

namespace {

/// read_input, with every failure tied to the file: running out of memory or an arithmetic
/// overflow while reading it become input_errors naming it (the reader has already left the
/// table as it was), so --keep-going goes on past them too.
void read_input_naming_it(std::string const& file, event_table& table,
                          read_options const& options) {
  try {
    read_input(file, table, options);
  } catch (input_error const&) {
    throw;
  } catch (std::bad_alloc const&) {
    throw input_error(file, "", "out of memory while reading it");
  } catch (std::exception const& e) {
    throw input_error(file, "", e.what());
  }
}

}  // namespace

namespace {

/// Gives the input just read its ranks as `options.ranks_from` says: the number in its file
/// name, or the next ones after `next_in_order`'s (which it then advances).
void assign_ranks(event_table& table, std::string const& file, rank_source from,
                  std::int32_t& next_in_order) {
  auto& info = table.inputs().back();
  if (from != rank_source::claimed) info.ranks_numbered_by_reader = false;  // the user's rule
  if (from == rank_source::order) {
    table.renumber_input_ranks(next_in_order);
    next_in_order += static_cast<std::int32_t>(info.ranks.size());
  }
  if (from != rank_source::path) return;
  if (info.ranks.size() > 1)
    throw input_error(file, "",
                      "holds " + std::to_string(info.ranks.size()) +
                          " ranks (processes): a rank number in the file name names one");
  auto const token = rank_in_file_name(fs::path(file).filename().string());
  if (!token)
    throw input_error(file, "",
                      "no rank number in the file name (as in rank-3.json or worker_3.sqlite)");
  table.renumber_input_ranks(token->rank);
}

/// Refuses the input just read when another input has claimed one of its ranks. Ranks its
/// reader numbered itself (nothing in the input names them) claim nothing: the input is noted
/// in `numbered` and placed once every claim is known (place_numbered_ranks).
void claim_ranks(event_table const& table, std::string const& file,
                 std::map<std::int32_t, std::string>& owner, std::vector<std::size_t>& numbered) {
  auto const& info = table.inputs().back();
  if (info.ranks_numbered_by_reader) {
    numbered.push_back(table.inputs().size() - 1);
    return;
  }
  for (auto r : info.ranks) {
    auto const [it, fresh] = owner.emplace(r, file);
    if (!fresh)
      throw input_error(file, "",
                        "rank " + std::to_string(r) + " is also claimed by " + it->second);
  }
}

/// Gives the inputs whose ranks their reader numbered ranks no other input holds, in reading
/// order: an input keeps its numbers when none is taken, else moves past every rank taken so
/// far. Whatever the order of the inputs, claimed ranks stay as claimed.
void place_numbered_ranks(event_table& table, std::map<std::int32_t, std::string> const& claimed,
                          std::vector<std::size_t> const& numbered) {
  std::set<std::int32_t> taken;
  for (auto const& [r, file] : claimed) taken.insert(r);
  for (auto const k : numbered) {
    auto const& info = table.inputs()[k];
    if (info.ranks.empty()) continue;
    bool const free = std::none_of(info.ranks.begin(), info.ranks.end(),
                                   [&](std::int32_t r) { return taken.contains(r); });
    if (!free) {
      auto const first = std::int64_t{*taken.rbegin()} + 1;
      auto const offset = first - info.ranks.front();
      if (std::int64_t{info.ranks.back()} + offset > std::numeric_limits<std::int32_t>::max())
        throw input_error(info.path, "", "no rank left past the ranks other inputs claim");
      table.shift_input_ranks(k, static_cast<std::int32_t>(offset));
    }
    taken.insert(info.ranks.begin(), info.ranks.end());
  }
}

/// The duplicated events of every input read, dropped at the end in one pass over the table.
struct duplicates_to_drop {
  std::vector<std::size_t> rows, memory_events;

  /// Finds the current input's duplicates, counts them as skipped and remembers them.
  void find(event_table& table, read_options const& options) {
    auto const found = detail::find_duplicates(table, options.threads);
    if (found.size() == 0) return;
    auto& info = table.inputs().back();
    info.skipped[std::string(skip_duplicate_event)] += static_cast<std::int64_t>(found.size());
    for (auto row : found.rows) {
      --info.events;
      --info.events_by_kind[static_cast<std::size_t>(table.kind[row])];
    }
    rows.insert(rows.end(), found.rows.begin(), found.rows.end());
    memory_events.insert(memory_events.end(), found.memory_events.begin(),
                         found.memory_events.end());
  }

  void drop(event_table& table) const {
    if (rows.empty() && memory_events.empty()) return;
    std::vector<std::uint8_t> keep_row(table.size(), 1), keep_memory(table.memory.size(), 1);
    for (auto r : rows) keep_row[r] = 0;
    for (auto m : memory_events) keep_memory[m] = 0;
    table.keep(keep_row, keep_memory);
  }
};

}  // namespace

std::vector<input_error> read_inputs(std::vector<std::string> const& paths, event_table& table,
                                     read_options const& options, bool keep_going) {
  auto files = expand_inputs(paths);
  std::vector<std::string> by_path = files;
  std::sort(by_path.begin(), by_path.end());
  std::vector<input_error> failures;
  std::map<std::int32_t, std::string> rank_owner;
  std::vector<std::size_t> numbered;  // inputs whose reader numbered their ranks
  std::int32_t next_in_order = 0;
  duplicates_to_drop duplicates;
  for (auto const& file : files) {
    read_options per_file = options;
    per_file.fallback_rank = static_cast<std::int32_t>(
        std::lower_bound(by_path.begin(), by_path.end(), file) - by_path.begin());
    try {
      if (options.progress) {
        std::error_code ec;
        auto const size = fs::file_size(file, ec);
        options.progress->begin_file(file, ec ? 0 : size);
      }
      read_input_naming_it(file, table, per_file);
      try {
        assign_ranks(table, file, options.ranks_from, next_in_order);
        claim_ranks(table, file, rank_owner, numbered);
      } catch (input_error const&) {
        table.abandon_input();
        throw;
      }
      if (!options.keep_duplicates) duplicates.find(table, options);
    } catch (input_error const& e) {
      if (!keep_going) throw;
      failures.push_back(e);
    }
  }
  place_numbered_ranks(table, rank_owner, numbered);
  duplicates.drop(table);
  return failures;
}

}  // namespace tracesweep
