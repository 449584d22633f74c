// SPDX-License-Identifier: Apache-2.0
// CUDA_GPU_MEMORY_USAGE_EVENTS → event_table::memory: one SELECT in time order and a running
// total per (rank, device).
#include "ingest/nsys/nsys_memory.hpp"

#include <sqlite3.h>

#include <map>
#include <utility>

namespace tracesweep::nsys {

namespace {

constexpr char const* memory_table = "CUDA_GPU_MEMORY_USAGE_EVENTS";

std::string memory_query(export_schema const& schema) {
  std::string sql = "SELECT start, globalPid, deviceId, bytes, memoryOperationType FROM ";
  sql.append(memory_table);
  if (schema.has_column(memory_table, "memKind")) sql.append(" WHERE memKind = 2");
  sql.append(" ORDER BY start, rowid");
  return sql;
}

bool has_memory_columns(export_schema const& schema) {
  for (auto const* c : {"start", "globalPid", "deviceId", "bytes", "memoryOperationType"})
    if (!schema.has_column(memory_table, c)) return false;
  return true;
}

}  // namespace

void load_memory_usage(connection& db, export_schema const& schema, event_table& table) {
  if (!schema.has_table(memory_table) || !has_memory_columns(schema)) return;
  statement rows(db.get(), db.path(), memory_table, memory_query(schema));
  std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> running;
  auto* s = rows.get();
  while (rows.step()) {
    auto const operation = sqlite3_column_int64(s, 4);
    if (operation != 0 && operation != 1) {
      table.skip("unknown_memory_operation");
      continue;
    }
    memory_event e;
    e.time_ns = sqlite3_column_int64(s, 0);
    e.rank = static_cast<std::int32_t>((sqlite3_column_int64(s, 1) >> 24) & 0xFFFFFF);
    e.device = static_cast<std::int32_t>(sqlite3_column_int64(s, 2));
    auto const bytes = sqlite3_column_int64(s, 3);
    e.bytes = operation == 0 ? bytes : -bytes;
    auto& total = running[{e.rank, e.device}];
    if (__builtin_add_overflow(total, e.bytes, &e.allocated)) e.allocated = INT64_MAX;
    e.reserved = e.allocated;
    if (table.append_memory(e)) total = e.allocated;
  }
}

}  // namespace tracesweep::nsys
