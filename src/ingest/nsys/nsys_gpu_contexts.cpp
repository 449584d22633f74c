// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_gpu_contexts.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>

namespace tracesweep::nsys {

namespace {

constexpr std::int64_t pid_mask = 0xFFFFFF;

bool fits_int32(std::int64_t v) {
  return v >= std::numeric_limits<std::int32_t>::min() &&
         v <= std::numeric_limits<std::int32_t>::max();
}

void load_contexts(connection& db, export_schema const& schema, input_info& info) {
  for (auto const* table :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    bool usable = true;
    for (auto const* c : {"start", "globalPid", "deviceId", "contextId"})
      usable = usable && schema.has_column(table, c);
    if (!usable) continue;
    statement rows(db.get(), db.path(), table,
                   std::string("SELECT DISTINCT globalPid >> 24, deviceId, contextId FROM ") +
                       quote_identifier(table) + " WHERE start > 0");
    while (rows.step()) {
      auto* s = rows.get();
      if (sqlite3_column_type(s, 0) == SQLITE_NULL || sqlite3_column_type(s, 1) == SQLITE_NULL ||
          sqlite3_column_type(s, 2) == SQLITE_NULL)
        continue;
      auto const device = sqlite3_column_int64(s, 1);
      if (!fits_int32(device)) continue;
      auto const pid = static_cast<std::int32_t>(sqlite3_column_int64(s, 0) & pid_mask);
      info.gpu_contexts[{pid, static_cast<std::int32_t>(device)}].push_back(
          sqlite3_column_int64(s, 2));
    }
  }
  for (auto& [key, contexts] : info.gpu_contexts) {
    std::sort(contexts.begin(), contexts.end());
    contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  }
}

void load_overhead(connection& db, export_schema const& schema, string_ids const& ids,
                   input_info& info) {
  std::string const table = "PROFILER_OVERHEAD";
  for (auto const* c : {"start", "end", "globalTid", "nameId"})
    if (!schema.has_column(table, c)) return;
  constexpr std::array<std::string_view, 3> counted = {"CUDA profiling data flush overhead",
                                                       "CUDA profiling stop overhead",
                                                       "CUDA profiling overhead"};
  statement rows(db.get(), db.path(), table,
                 "SELECT start, \"end\", globalTid >> 24, nameId FROM " + quote_identifier(table) +
                     " ORDER BY start, rowid");
  while (rows.step()) {
    auto* s = rows.get();
    bool null = false;
    for (int c = 0; c < 4; ++c) null = null || sqlite3_column_type(s, c) == SQLITE_NULL;
    std::string_view name;
    if (null || !ids.lookup(sqlite3_column_int64(s, 3), name)) continue;
    if (std::find(counted.begin(), counted.end(), name) == counted.end()) continue;
    auto const start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
    if (end < start || !time_in_range(start) || !time_in_range(end)) continue;
    info.profiler_overhead.push_back(
        {static_cast<std::int32_t>(sqlite3_column_int64(s, 2) & pid_mask), start, end});
  }
}

}  // namespace

void load_gpu_contexts(connection& db, export_schema const& schema, string_ids const& ids,
                       input_info& info) {
  load_contexts(db, schema, info);
  load_overhead(db, schema, ids, info);
}

}  // namespace tracesweep::nsys
