// SPDX-License-Identifier: Apache-2.0
// Every nsys stats report, on every real export in the shared traces folder, against the same
// report written as plain SQL (GROUP BY, window-function median, two-pass variance) and run by
// SQLite on the same file: integers exact, 1-decimal columns within 0.05 or 1e-6 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_reports_test {

/// The report's rows as (name, style, value) in SQL, or "" when the export lacks the tables.
std::string source_sql(oracle_db& db, std::string const& report, std::string const& naming) {
  auto const kernel = std::string("CUPTI_ACTIVITY_KIND_KERNEL");
  if (report == "cuda_gpu_kern_sum") {
    if (!db.has_table(kernel)) return "";
    std::string name = "k.demangledName";
    if (naming == "base") name = "k.shortName";
    if (naming == "mangled" && db.has_column(kernel, "mangledName"))
      name = "coalesce(k.mangledName, k.demangledName)";
    return "SELECT s.value AS name, '' AS style, k.\"end\" - k.start AS v FROM " + kernel +
           " k JOIN StringIds s ON s.id = " + name;
  }
  if (report == "cuda_gpu_mem_time_sum" || report == "cuda_gpu_mem_size_sum") {
    std::string const v = report == "cuda_gpu_mem_time_sum" ? "\"end\" - start" : "bytes";
    std::vector<std::string> parts;
    if (db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY")) {
      std::string const labels =
          db.has_table("ENUM_CUDA_MEMCPY_OPER") ? "ENUM_CUDA_MEMCPY_OPER" : "enum_memcpy";
      parts.push_back("SELECT '[CUDA memcpy ' || e.label || ']' AS name, '' AS style, m." + v +
                      " AS v FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN " + labels +
                      " e ON e.id = m.copyKind");
    }
    if (db.has_table("CUPTI_ACTIVITY_KIND_MEMSET"))
      parts.push_back("SELECT '[CUDA memset]' AS name, '' AS style, " + v +
                      " AS v FROM CUPTI_ACTIVITY_KIND_MEMSET");
    std::string sql;
    for (auto const& p : parts) sql += (sql.empty() ? "" : " UNION ALL ") + p;
    return sql;
  }
  if (report == "cuda_api_sum") {
    if (!db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) return "";
    return "SELECT CASE WHEN substr(s.value, -6, 2) = '_v' THEN substr(s.value, 1, length(s.value) "
           "- 6) ELSE s.value END AS name, '' AS style, r.\"end\" - r.start AS v FROM "
           "CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId";
  }
  if (report == "osrt_sum") {
    if (!db.has_table("OSRT_API")) return "";
    return "SELECT s.value, '', o.\"end\" - o.start FROM OSRT_API o JOIN StringIds s ON s.id = "
           "o.nameId";
  }
  if (report == "cuda_gpu_sum" || report == "cuda_api_gpu_sum") {
    // The union of the kernel, memory-operation (and API) sources, the category in `style`.
    std::vector<std::string> parts;
    auto const kernels = source_sql(db, "cuda_gpu_kern_sum", naming);
    if (!kernels.empty()) parts.push_back("SELECT name, 'CUDA_KERNEL', v FROM (" + kernels + ")");
    auto const memory = source_sql(db, "cuda_gpu_mem_time_sum", naming);
    if (!memory.empty()) parts.push_back("SELECT name, 'MEMORY_OPER', v FROM (" + memory + ")");
    if (report == "cuda_api_gpu_sum") {
      auto const api = source_sql(db, "cuda_api_sum", naming);
      if (!api.empty()) parts.push_back("SELECT name, 'CUDA_API', v FROM (" + api + ")");
    }
    std::string sql;
    for (auto const& p : parts) sql += (sql.empty() ? "" : " UNION ALL ") + p;
    return sql;
  }
  if (report == "nvtx_sum") {
    if (!db.has_table("NVTX_EVENTS")) return "";
    return "SELECT coalesce(d.dname || ':', '') || coalesce(n.text, s.value, ''), CASE WHEN "
           "n.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END, n.\"end\" - n.start FROM "
           "NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId LEFT JOIN (SELECT DISTINCT "
           "(globalTid >> 24) & 16777215 AS pid, domainId, text AS dname FROM NVTX_EVENTS WHERE "
           "eventType = 75) d ON d.pid = (n.globalTid >> 24) & 16777215 AND d.domainId = "
           "n.domainId WHERE n.eventType IN (59, 60, 70, 71) AND n.\"end\" IS NOT NULL";
  }
  return "";
}

/// The whole report in SQL: columns time%, total, count, avg, median, min, max, variance,
/// name, style; sorted as nsys sorts.
std::string report_sql(std::string const& source, bool memcpy_enum) {
  return std::string("WITH ") + (memcpy_enum ? std::string(builtin_memcpy_enum) + ", " : "") +
         "src(name, style, v) AS (" + source +
         "), r AS (SELECT name, style, v, ROW_NUMBER() OVER (PARTITION BY name, style ORDER BY v) "
         "AS rn, COUNT(*) OVER (PARTITION BY name, style) AS cnt FROM src), g AS (SELECT name, "
         "style, SUM(v) AS tot, COUNT(*) AS n, AVG(v) AS av, AVG(CASE WHEN rn IN ((cnt + 1) / 2, "
         "(cnt + 2) / 2) THEN v END) AS med, MIN(v) AS mn, MAX(v) AS mx FROM r GROUP BY name, "
         "style), var AS (SELECT src.name, src.style, SUM((src.v - g.av) * (src.v - g.av)) AS ss "
         "FROM src JOIN g ON g.name = src.name AND g.style = src.style GROUP BY src.name, "
         "src.style) SELECT round(g.tot * 100.0 / (SELECT SUM(tot) FROM g), 1), g.tot, g.n, g.av, "
         "g.med, g.mn, g.mx, CASE WHEN g.n > 1 THEN var.ss / (g.n - 1) ELSE 0 END, g.name, "
         "g.style FROM g JOIN var ON var.name = g.name AND var.style = g.style ORDER BY g.tot "
         "DESC, g.n DESC, g.name, g.style";
}

void expect_decimal(std::string const& cell, double expected, double abs_tol,
                    std::string const& what) {
  double const got = std::stod(cell);
  double const tol = std::max(abs_tol + 1e-9, std::abs(expected) * 1e-6);
  EXPECT_NEAR(got, expected, tol) << what;
}

void check_report(std::filesystem::path const& file, std::string const& report,
                  std::string const& naming) {
  SCOPED_TRACE(file.string() + " " + report + " --name " + naming);
  oracle_db db(file);
  auto const source = source_sql(db, report, naming);
  std::vector<std::vector<sql_value>> expected;
  if (!source.empty())
    expected = db.query(report_sql(source, !db.has_table("ENUM_CUDA_MEMCPY_OPER")));

  auto const r =
      run_cli("stats --report " + report + " --format csv --name " + naming + " " + quote(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto const rows = parse_csv(r.out);
  ASSERT_FALSE(rows.empty());
  bool const size = report == "cuda_gpu_mem_size_sum";
  // nvtx_sum: Style, Range; the union reports: Category, Operation (style, name as well).
  bool const nvtx =
      report == "nvtx_sum" || report == "cuda_gpu_sum" || report == "cuda_api_gpu_sum";
  ASSERT_EQ(rows.size() - 1, expected.size()) << r.out;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    auto const& e = expected[i];
    auto const& row = rows[i + 1];
    std::string const what = "row " + std::to_string(i) + " " + e[8].s;
    ASSERT_EQ(row.size(), size ? 8u : nvtx ? 10u : 9u) << what;
    double const sd = std::sqrt(e[7].d);
    if (size) {
      // Total (MB), Count, Avg, Med, Min, Max, StdDev (MB, 3 decimals), Operation.
      expect_decimal(row[0], static_cast<double>(e[1].i) / 1e6, 0.0005, what);
      EXPECT_EQ(std::stoll(row[1]), e[2].i) << what;
      expect_decimal(row[2], e[3].d / 1e6, 0.0005, what);
      expect_decimal(row[3], e[4].d / 1e6, 0.0005, what);
      expect_decimal(row[4], static_cast<double>(e[5].i) / 1e6, 0.0005, what);
      expect_decimal(row[5], static_cast<double>(e[6].i) / 1e6, 0.0005, what);
      expect_decimal(row[6], sd / 1e6, 0.0005, what);
      EXPECT_EQ(row[7], e[8].s) << what;
      continue;
    }
    expect_decimal(row[0], e[0].d, 0.05, what);
    EXPECT_EQ(std::stoll(row[1]), e[1].i) << what;
    EXPECT_EQ(std::stoll(row[2]), e[2].i) << what;
    expect_decimal(row[3], e[3].d, 0.05, what);
    expect_decimal(row[4], e[4].d, 0.05, what);
    EXPECT_EQ(std::stoll(row[5]), e[5].i) << what;
    EXPECT_EQ(std::stoll(row[6]), e[6].i) << what;
    expect_decimal(row[7], sd, 0.05, what);
    if (nvtx) {
      EXPECT_EQ(row[8], e[9].s) << what;
      EXPECT_EQ(row[9], e[8].s) << what;
    } else {
      EXPECT_EQ(row[8], e[8].s) << what;
    }
  }
}

class nsys_report : public ::testing::TestWithParam<char const*> {};

TEST_P(nsys_report, matches_sql_on_every_real_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = nsys_exports(traces);
  ASSERT_GE(files.size(), 10u);
  for (auto const& f : files) check_report(f, GetParam(), "demangled");
  // The committed generated sample too (written by tracesweep generate --format nsys-sqlite).
  check_report(
      std::filesystem::path(TRACESWEEP_SOURCE_DIR) / "datasets" / "samples" / "train_2rank.sqlite",
      GetParam(), "demangled");
}

INSTANTIATE_TEST_SUITE_P(reports, nsys_report,
                         ::testing::Values("cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
                                           "cuda_gpu_mem_size_sum", "cuda_api_sum", "nvtx_sum",
                                           "osrt_sum", "cuda_gpu_sum", "cuda_api_gpu_sum"));

TEST(nsys_report_names, base_and_mangled_kernel_names_match_sql) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    check_report(f, "cuda_gpu_kern_sum", "base");
    check_report(f, "cuda_gpu_kern_sum", "mangled");
  }
}

TEST(nsys_report_baseline, kern_sum_equals_the_shared_baseline_sql) {
  // The fixed baseline query of ../shared/bench, run by SQLite, against our CSV.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const sql = slurp(traces.parent_path() / "bench" / "nsys_kern_sum.sql");
  if (sql.empty()) GTEST_SKIP() << "no shared bench SQL";
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    auto const expected = db.query(sql);
    auto const rows =
        parse_csv(run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(f)).out);
    ASSERT_EQ(rows.size() - 1, expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(std::stoll(rows[i + 1][1]), expected[i][1].i);
      EXPECT_EQ(std::stoll(rows[i + 1][2]), expected[i][2].i);
      expect_decimal(rows[i + 1][4], expected[i][4].d, 0.05, "median");
      expect_decimal(rows[i + 1][7], expected[i][7].d, 0.05, "stddev");
      EXPECT_EQ(rows[i + 1][8], expected[i][8].s);
    }
  }
}

TEST(nsys_report_merge, merged_table_is_the_sql_over_the_union_of_files) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const a = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  auto const b = traces / "nsys" / "nsys-ai" / "mfu_2gpu_after.sqlite";
  auto const merged = parse_csv(
      run_cli("stats --report cuda_gpu_kern_sum --format csv --merge " + quote(a) + " " + quote(b))
          .out);
  // Oracle: attach the second file and run the report over both kernel tables.
  oracle_db db(a);
  db.exec("ATTACH DATABASE 'file:" + b.string() + "?immutable=1' AS b");
  auto const expected = db.query(report_sql(
      "SELECT s.value, '', k.\"end\" - k.start FROM main.CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
      "main.StringIds s ON s.id = k.demangledName UNION ALL SELECT s.value, '', k.\"end\" - "
      "k.start FROM b.CUPTI_ACTIVITY_KIND_KERNEL k JOIN b.StringIds s ON s.id = k.demangledName",
      false));
  ASSERT_EQ(merged.size() - 1, expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(std::stoll(merged[i + 1][1]), expected[i][1].i);
    EXPECT_EQ(std::stoll(merged[i + 1][2]), expected[i][2].i);
    EXPECT_EQ(merged[i + 1][8], expected[i][8].s);
  }
  // Without --merge: one table per file, tagged by a trailing File column.
  auto const split = parse_csv(
      run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(a) + " " + quote(b)).out);
  ASSERT_FALSE(split.empty());
  EXPECT_EQ(split[0].back(), "File");
  std::size_t from_a = 0;
  for (std::size_t i = 1; i < split.size(); ++i) from_a += split[i].back() == a.string();
  oracle_db da(a);
  EXPECT_EQ(from_a,
            da.query("SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL").size());
}

}  // namespace nsys_reports_test

}  // namespace tracesweep::test
