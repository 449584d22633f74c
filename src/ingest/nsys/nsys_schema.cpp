// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_schema.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace tracesweep::nsys {

namespace {

bool used_by_reader(std::string_view t) {
  return t.starts_with("CUPTI_ACTIVITY_KIND_") || t.starts_with("ENUM_") ||
         t.starts_with("TARGET_INFO_") || t == "NVTX_EVENTS" || t == "OSRT_API" ||
         t == "StringIds" || t == "ThreadNames" || t == "CUDA_GPU_MEMORY_USAGE_EVENTS";
}

/// SQLite's first affinity rule: a declared type containing "INT" has INTEGER affinity.
bool integer_affinity(std::string type) {
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return type.find("INT") != std::string::npos;
}

}  // namespace

export_schema::export_schema(connection& db) {
  std::vector<std::string> tables;
  {
    statement list(db.get(), db.path(), "schema",
                   "SELECT name, rootpage FROM sqlite_master WHERE type = 'table' ORDER BY rowid");
    while (list.step()) {
      auto const* text = sqlite3_column_text(list.get(), 0);
      if (!text) continue;
      tables.emplace_back(reinterpret_cast<char const*>(text));
      if (sqlite3_column_type(list.get(), 1) == SQLITE_INTEGER)
        _records[tables.back()].root_page = sqlite3_column_int64(list.get(), 1);
    }
  }
  for (auto const& t : tables) {
    auto& columns = _columns[t];
    if (!used_by_reader(t)) continue;
    auto& layout = _records[t];
    // table_xinfo: table_info's columns (cid, name, type, notnull, dflt_value, pk) and hidden.
    statement info(db.get(), db.path(), t, "PRAGMA table_xinfo(" + quote_identifier(t) + ")");
    while (info.step()) {
      auto* s = info.get();
      auto const* text = sqlite3_column_text(s, 1);
      if (sqlite3_column_int(s, 6) != 0) {  // hidden or generated: records skip it
        layout.plain = false;
        continue;
      }
      std::string name = text ? reinterpret_cast<char const*>(text) : "";
      auto const* type = reinterpret_cast<char const*>(sqlite3_column_text(s, 2));
      bool const readable = integer_affinity(type ? type : "") &&
                            sqlite3_column_type(s, 4) == SQLITE_NULL &&
                            sqlite3_column_int(s, 5) == 0;
      layout.readable.push_back(readable ? name : std::string());
      if (!text) continue;
      columns.push_back(name);
      if (sqlite3_column_int(s, 3) != 0) _not_null[t].push_back(columns.back());
    }
  }
}

std::int64_t export_schema::root_page(std::string const& table) const {
  auto it = _records.find(table);
  return it == _records.end() ? 0 : it->second.root_page;
}

std::optional<int> export_schema::record_column(std::string const& table,
                                                std::string const& column) const {
  auto it = _records.find(table);
  if (it == _records.end() || !it->second.plain || column.empty()) return std::nullopt;
  auto const& readable = it->second.readable;
  auto const at = std::find(readable.begin(), readable.end(), column);
  if (at == readable.end()) return std::nullopt;
  return static_cast<int>(at - readable.begin());
}

bool export_schema::has_table(std::string const& table) const {
  return _columns.contains(table);
}

bool export_schema::has_column(std::string const& table, std::string const& column) const {
  auto it = _columns.find(table);
  if (it == _columns.end()) return false;
  return std::find(it->second.begin(), it->second.end(), column) != it->second.end();
}

bool export_schema::is_not_null(std::string const& table, std::string const& column) const {
  auto it = _not_null.find(table);
  if (it == _not_null.end()) return false;
  return std::find(it->second.begin(), it->second.end(), column) != it->second.end();
}

bool export_schema::looks_like_nsys() const {
  static constexpr std::array<std::string_view, 7> markers{"CUPTI_ACTIVITY_KIND_KERNEL",
                                                           "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                           "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                           "NVTX_EVENTS",
                                                           "OSRT_API",
                                                           "TARGET_INFO_SESSION_START_TIME",
                                                           "TARGET_INFO_GPU"};
  if (!has_table("StringIds")) return false;
  return std::any_of(markers.begin(), markers.end(),
                     [&](std::string_view m) { return has_table(std::string(m)); });
}

std::optional<std::pair<std::int64_t, std::int64_t>> rowid_bounds(connection& db,
                                                                  std::string const& table) {
  auto const q = quote_identifier(table);
  statement first(db.get(), db.path(), table, "SELECT rowid FROM " + q + " ORDER BY rowid LIMIT 1");
  if (!first.step()) return std::nullopt;
  std::int64_t const lo = sqlite3_column_int64(first.get(), 0);
  statement last(db.get(), db.path(), table,
                 "SELECT rowid FROM " + q + " ORDER BY rowid DESC LIMIT 1");
  last.step();
  return std::pair{lo, sqlite3_column_int64(last.get(), 0)};
}

}  // namespace tracesweep::nsys
