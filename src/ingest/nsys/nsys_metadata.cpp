// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_metadata.hpp"

#include <cstdint>
#include <initializer_list>
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
  // Optional property columns, by name (TARGET_INFO_CUDA_GPU called the SM count
  // numMultiprocessors); a missing one reads as NULL.
  auto column = [&](std::initializer_list<char const*> names) -> std::string {
    for (auto const* n : names)
      if (schema.has_column(table, n)) return quote_identifier(n);
    return "NULL";
  };
  statement rows(db.get(), db.path(), table,
                 "SELECT " + quote_identifier(id) + ", name, " + column({"totalMemory"}) + ", " +
                     column({"smCount", "numMultiprocessors"}) + ", " + column({"computeMajor"}) +
                     ", " + column({"computeMinor"}) + " FROM " + quote_identifier(table) +
                     " ORDER BY rowid");
  auto* const s = rows.get();
  // An integer cell in [0, most], else -1.
  auto whole = [&](int c, std::int64_t most) -> std::int64_t {
    if (sqlite3_column_type(s, c) != SQLITE_INTEGER) return -1;
    auto const v = sqlite3_column_int64(s, c);
    return v >= 0 && v <= most ? v : -1;
  };
  while (rows.step()) {
    auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(s, 1));
    if (sqlite3_column_type(s, 0) == SQLITE_NULL || !text) continue;
    auto const device = sqlite3_column_int64(s, 0);
    if (device < std::numeric_limits<std::int32_t>::min() ||
        device > std::numeric_limits<std::int32_t>::max())
      continue;
    auto const id = static_cast<std::int32_t>(device);
    if (!info.device_names.try_emplace(id, text).second) continue;
    input_info::gpu_properties p;
    p.total_memory_bytes = whole(2, std::int64_t{1} << 60);
    p.sm_count = static_cast<std::int32_t>(whole(3, INT32_MAX));
    p.compute_major = static_cast<std::int32_t>(whole(4, 1000));
    p.compute_minor = static_cast<std::int32_t>(whole(5, 1000));
    info.device_properties.emplace(id, p);
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
