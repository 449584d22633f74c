// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_metadata.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace tracesweep::nsys {

namespace {

constexpr std::int64_t tid_mask = 0xFFFFFF;

void load_session_start(connection& db, export_schema const& schema, input_info& info) {
  std::string const table = "TARGET_INFO_SESSION_START_TIME";
  if (!schema.has_column(table, "utcEpochNs")) return;
  statement rows(db.get(), db.path(), table,
                 "SELECT utcEpochNs FROM " + quote_identifier(table) + " ORDER BY rowid");
  while (rows.step()) {
    if (sqlite3_column_type(rows.get(), 0) == SQLITE_NULL) continue;
    info.session_start_utc_ns = sqlite3_column_int64(rows.get(), 0);
    return;
  }
}

void load_device_names(connection& db, export_schema const& schema, input_info& info) {
  // nsys ≥ 2021.3.1: TARGET_INFO_GPU(id, name); earlier: TARGET_INFO_CUDA_GPU(deviceId, name).
  std::string table, id;
  for (auto const& [t, c] :
       {std::pair{"TARGET_INFO_GPU", "id"}, std::pair{"TARGET_INFO_CUDA_GPU", "deviceId"},
        std::pair{"TARGET_INFO_CUDA_GPU", "id"}}) {
    if (schema.has_column(t, c) && schema.has_column(t, "name")) {
      table = t, id = c;
      break;
    }
  }
  if (table.empty()) return;
  statement rows(db.get(), db.path(), table,
                 "SELECT " + quote_identifier(id) + ", name FROM " + quote_identifier(table) +
                     " ORDER BY rowid");
  while (rows.step()) {
    auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(rows.get(), 1));
    if (sqlite3_column_type(rows.get(), 0) == SQLITE_NULL || !text) continue;
    auto const device = sqlite3_column_int64(rows.get(), 0);
    if (device < std::numeric_limits<std::int32_t>::min() ||
        device > std::numeric_limits<std::int32_t>::max())
      continue;
    info.device_names.try_emplace(static_cast<std::int32_t>(device), text);
  }
}

void load_thread_names(connection& db, export_schema const& schema, string_ids const& ids,
                       input_info& info) {
  std::string const table = "ThreadNames";
  if (!schema.has_column(table, "nameId") || !schema.has_column(table, "globalTid")) return;
  statement rows(db.get(), db.path(), table,
                 "SELECT globalTid, nameId FROM " + quote_identifier(table) + " ORDER BY rowid");
  while (rows.step()) {
    if (sqlite3_column_type(rows.get(), 0) == SQLITE_NULL ||
        sqlite3_column_type(rows.get(), 1) == SQLITE_NULL)
      continue;
    std::string_view name;
    if (!ids.lookup(sqlite3_column_int64(rows.get(), 1), name)) continue;
    auto const tid = sqlite3_column_int64(rows.get(), 0) & tid_mask;
    info.thread_names.try_emplace(tid, name);
  }
}

}  // namespace

void load_metadata(connection& db, export_schema const& schema, string_ids const& ids,
                   input_info& info) {
  load_session_start(db, schema, info);
  load_device_names(db, schema, info);
  load_thread_names(db, schema, ids, info);
}

}  // namespace tracesweep::nsys
