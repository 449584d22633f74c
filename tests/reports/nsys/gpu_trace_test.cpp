// SPDX-License-Identifier: Apache-2.0
// cuda_gpu_trace and cuda_gpu_kern_gb_sum through `stats --format csv`, against the same reports
// written as SQL over every real export (and the bundled generated sample): every row and cell
// of the trace (launch dimensions, registers, shared memory, bytes, nsys's integer-division
// throughput, memory kinds, "<GPU name> (<id>)", context, green context, stream, name), and per
// (name, grid, block) the count, total, min and max of the kernel summary by launch.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace gpu_trace_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

std::vector<fs::path> exports_with_kernels() {
  std::vector<fs::path> out;
  auto const traces = traces_dir();
  if (fs::is_directory(traces))
    for (auto const& f : nsys_exports(traces)) out.push_back(f);
  out.emplace_back(fs::path(TRACESWEEP_SAMPLE));
  return out;
}

/// A cell as CSV prints it: NULL empty, integers in decimal, text as is.
std::string text_of(sql_value const& v) {
  if (v.type == SQLITE_NULL) return "";
  if (v.type == SQLITE_INTEGER) return std::to_string(v.i);
  return v.s;
}

/// `column` of `table` when it exists, else NULL.
std::string column_or_null(oracle_db& db, std::string const& table, std::string const& column,
                           std::string const& alias) {
  return db.has_column(table, column) ? alias + "." + column : "NULL";
}

/// The device label: "<name> (<id>)" from the GPU table the export has, else the id.
std::string device_sql(oracle_db& db, std::string const& alias) {
  std::string table, id;
  if (db.has_table("TARGET_INFO_GPU") && db.has_column("TARGET_INFO_GPU", "name"))
    table = "TARGET_INFO_GPU", id = "id";
  else if (db.has_table("TARGET_INFO_CUDA_GPU") && db.has_column("TARGET_INFO_CUDA_GPU", "name"))
    table = "TARGET_INFO_CUDA_GPU",
    id = db.has_column("TARGET_INFO_CUDA_GPU", "deviceId") ? "deviceId" : "id";
  auto const plain = "CAST(" + alias + ".deviceId AS TEXT)";
  if (table.empty()) return plain;
  return "coalesce((SELECT g.name || ' (' || " + alias + ".deviceId || ')' FROM " + table +
         " g WHERE g." + id + " = " + alias +
         ".deviceId AND g.name IS NOT NULL ORDER BY g.rowid "
         "LIMIT 1), " +
         plain + ")";
}

std::string trace_sql(oracle_db& db) {
  std::vector<std::string> parts;
  std::string const kernel = "CUPTI_ACTIVITY_KIND_KERNEL", memcpy = "CUPTI_ACTIVITY_KIND_MEMCPY",
                    memset = "CUPTI_ACTIVITY_KIND_MEMSET";
  bool const memcpy_enum = db.has_table("ENUM_CUDA_MEMCPY_OPER");
  bool const kind_enum = db.has_table("ENUM_CUDA_MEM_KIND");
  std::string const copy_labels = memcpy_enum ? "ENUM_CUDA_MEMCPY_OPER" : "enum_memcpy";
  std::string const kind_labels = kind_enum ? "ENUM_CUDA_MEM_KIND" : "enum_memkind";
  auto kind_label = [&](std::string const& expr) {
    return "(SELECT label FROM " + kind_labels + " WHERE id = " + expr + ")";
  };
  if (db.has_table(kernel))
    parts.push_back(
        "SELECT k.start AS st, k.\"end\" - k.start, k.correlationId, k.gridX, k.gridY, k.gridZ, "
        "k.blockX, k.blockY, k.blockZ, k.registersPerThread, k.staticSharedMemory, "
        "k.dynamicSharedMemory, NULL, NULL, NULL, NULL, " +
        device_sql(db, "k") + ", k.contextId, " +
        column_or_null(db, kernel, "greenContextId", "k") +
        ", k.streamId, s.value, 0 AS src, k.rowid AS rid FROM " + kernel +
        " k JOIN StringIds s ON s.id = k.demangledName");
  if (db.has_table(memcpy))
    parts.push_back(
        "SELECT m.start, m.\"end\" - m.start, m.correlationId, NULL, NULL, NULL, NULL, NULL, "
        "NULL, NULL, NULL, NULL, m.bytes, CASE WHEN m.\"end\" > m.start THEN m.bytes * "
        "(1000000000 / (m.\"end\" - m.start)) END, " +
        kind_label("m.srcKind") + ", " + kind_label("m.dstKind") + ", " + device_sql(db, "m") +
        ", m.contextId, " + column_or_null(db, memcpy, "greenContextId", "m") +
        ", m.streamId, '[CUDA memcpy ' || e.label || ']', 1, m.rowid FROM " + memcpy + " m JOIN " +
        copy_labels + " e ON e.id = m.copyKind");
  if (db.has_table(memset))
    parts.push_back(
        "SELECT z.start, z.\"end\" - z.start, z.correlationId, NULL, NULL, NULL, NULL, NULL, "
        "NULL, NULL, NULL, NULL, z.bytes, CASE WHEN z.\"end\" > z.start THEN z.bytes * "
        "(1000000000 / (z.\"end\" - z.start)) END, " +
        (db.has_column(memset, "memKind") ? kind_label("z.memKind") : std::string("NULL")) +
        ", NULL, " + device_sql(db, "z") + ", z.contextId, " +
        column_or_null(db, memset, "greenContextId", "z") +
        ", z.streamId, '[CUDA memset]', 2, z.rowid FROM " + memset + " z");
  std::string sql = "WITH " + std::string(builtin_memcpy_enum) + ", " + builtin_memory_kind_enum +
                    " SELECT * FROM (";
  for (std::size_t k = 0; k < parts.size(); ++k) sql += (k ? " UNION ALL " : "") + parts[k];
  return sql + ") ORDER BY st, src, rid";
}

TEST(GpuTrace, EveryCellMatchesSqlOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : exports_with_kernels()) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    auto const expected = db.query(trace_sql(db));
    auto const r = run_cli("stats --report cuda_gpu_trace --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto rows = parse_csv(r.out);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0].size(), 21u);
    EXPECT_EQ(rows[0][13], "Throughput (B/s)");
    ASSERT_EQ(rows.size() - 1, expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      std::vector<std::string> want;
      for (std::size_t c = 0; c < 21; ++c) want.push_back(text_of(expected[i][c]));
      ASSERT_EQ(rows[i + 1], want) << "row " << i + 1;
    }
  }
}

TEST(GpuTrace, KernelSummaryByGridAndBlockMatchesSql) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : exports_with_kernels()) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    if (!db.has_table("CUPTI_ACTIVITY_KIND_KERNEL")) continue;
    auto const expected = db.query(
        "SELECT SUM(k.\"end\" - k.start) AS t, COUNT(*) AS n, MIN(k.\"end\" - k.start), "
        "MAX(k.\"end\" - k.start), printf('%4d %4d %4d', k.gridX, k.gridY, k.gridZ) AS g, "
        "printf('%4d %4d %4d', k.blockX, k.blockY, k.blockZ) AS b, s.value AS name FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY name, "
        "g, b ORDER BY t DESC, n DESC, name, g, b");
    auto const r = run_cli("stats --report cuda_gpu_kern_gb_sum --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = parse_csv(r.out);
    ASSERT_EQ(rows.size() - 1, expected.size());
    EXPECT_EQ(rows[0][8], "GridXYZ");
    EXPECT_EQ(rows[0][9], "BlockXYZ");
    for (std::size_t i = 0; i < expected.size(); ++i) {
      auto const& e = expected[i];
      auto const& row = rows[i + 1];
      std::vector<std::string> const got = {row[1], row[2], row[5], row[6],
                                            row[8], row[9], row[10]};
      std::vector<std::string> const want = {
          text_of(e[0]), text_of(e[1]), text_of(e[2]), text_of(e[3]), e[4].s, e[5].s, e[6].s};
      EXPECT_EQ(got, want) << "row " << i + 1;
    }
  }
}

}  // namespace gpu_trace_test
