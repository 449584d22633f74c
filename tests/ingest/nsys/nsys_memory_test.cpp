// SPDX-License-Identifier: Apache-2.0
// CUDA_GPU_MEMORY_USAGE_EVENTS into event_table::memory: a generated export (written with the
// generator's memory pattern) reads back event for event, with the running totals recomputed
// here; rows of other memory kinds are left out and unknown operations counted; the real
// exports, none of which has the table, give no memory event.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include "nsys_test_support.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_memory_test {

/// A 2-rank trace with the memory pattern, written as `dir`/trace.sqlite.
std::filesystem::path memory_export(event_table& generated, temp_dir const& dir) {
  synthetic_options o;
  o.ranks = 2;
  o.steps = 5;
  o.kernels_per_step = 20;
  o.plant.memory_staircase = true;
  generate_synthetic_trace(o, generated);
  auto path = dir.path() / "trace.sqlite";
  write_nsys_sqlite(generated, path.string());
  return path;
}

void exec(std::filesystem::path const& db_path, char const* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.string().c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(NsysMemory, GeneratedExportReadsBackEventForEvent) {
  temp_dir dir("nsys_memory");
  event_table generated;
  auto const path = memory_export(generated, dir);
  auto const shift = *std::min_element(generated.start_ns.begin(), generated.start_ns.end());
  auto const t = read_export(path, 2);
  auto const& g = generated.memory;
  auto const& m = t.memory;
  ASSERT_GT(g.size(), 10u);
  ASSERT_EQ(m.size(), g.size());
  // The reader orders by time; the generator wrote rank by rank, each in time order.
  std::vector<std::size_t> order(g.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return g.time_ns[a] < g.time_ns[b]; });
  std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> running;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto const i = order[k];
    SCOPED_TRACE(k);
    EXPECT_EQ(m.time_ns[k], g.time_ns[i] - shift);
    EXPECT_EQ(m.rank[k], g.rank[i]);
    EXPECT_EQ(m.device[k], g.device[i]);
    EXPECT_EQ(m.bytes[k], g.bytes[i]);
    EXPECT_EQ(m.thread[k], -1);
    auto& total = running[{g.rank[i], g.device[i]}];
    total += g.bytes[i];
    EXPECT_EQ(m.allocated[k], total);
    EXPECT_EQ(m.allocated[k], g.allocated[i]);  // the generator's totals start at 0 too
    EXPECT_EQ(m.reserved[k], total);
  }
  EXPECT_TRUE(t.inputs()[0].skipped.empty());
}

TEST(NsysMemory, OtherKindsAreLeftOutAndUnknownOperationsCounted) {
  temp_dir dir("nsys_memory_kinds");
  event_table generated;
  auto const path = memory_export(generated, dir);
  auto const before = read_export(path, 1).memory.size();
  // A pinned host allocation (memKind 1) and a device row of an operation type nsys does not
  // define (2).
  exec(path,
       "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, "
       "pc, bytes, memKind, memoryOperationType) VALUES (10, 281474976710656, 0, 1, 1, 0, 4096, "
       "1, 0), (11, 281474976710656, 0, 1, 2, 0, 4096, 2, 2)");
  auto const t = read_export(path, 1);
  EXPECT_EQ(t.memory.size(), before);
  EXPECT_EQ(t.inputs()[0].skipped.at("unknown_memory_operation"), 1);
}

TEST(NsysMemory, RealExportsHaveNoMemoryUsageTable) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const exports = nsys_exports(traces);
  ASSERT_FALSE(exports.empty());
  for (auto const& f : exports) EXPECT_EQ(read_export(f, 1).memory.size(), 0u) << f;
}

}  // namespace nsys_memory_test

}  // namespace tracesweep::test
