// SPDX-License-Identifier: Apache-2.0
// nvtx_kern_sum through `stats --format csv` against SQL on every real export with NVTX ranges
// and kernels: each kernel attributed to every push/pop or start/end range of its launching
// call's process and thread that encloses the call; per (range, style, PID, TID, kernel) the
// enclosing range instances, the kernel instances and the duration statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace nvtx_kernels_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

constexpr char const* attributions_sql =
    "WITH calls AS (SELECT rowid AS rid, start, \"end\", globalTid, correlationId, (globalTid >> "
    "24) & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL), "
    "first AS (SELECT pid, correlationId, MIN(rid) AS rid FROM calls GROUP BY pid, correlationId), "
    "launches AS MATERIALIZED (SELECT c.start AS cs, c.\"end\" AS ce, c.pid AS pid, c.globalTid & "
    "16777215 AS "
    "tid, k.\"end\" - k.start AS kd, s.value AS kname, k.rowid AS krow FROM "
    "CUPTI_ACTIVITY_KIND_KERNEL k JOIN first "
    "f ON f.pid = ((k.globalPid >> 24) & 16777215) AND f.correlationId = k.correlationId JOIN "
    "calls "
    "c ON c.rid = f.rid JOIN StringIds s ON s.id = k.demangledName), domains AS (SELECT DISTINCT "
    "(globalTid >> 24) & 16777215 AS pid, domainId, text AS dname FROM NVTX_EVENTS WHERE "
    "eventType = 75), ranges AS MATERIALIZED (SELECT n.rowid AS rid, n.start, n.\"end\", "
    "(n.globalTid >> 24) & "
    "16777215 AS pid, n.globalTid & 16777215 AS tid, coalesce(d.dname || ':', '') || "
    "coalesce(n.text, t.value, '') AS name, CASE WHEN n.eventType IN (59, 70) THEN 'PushPop' ELSE "
    "'StartEnd' END AS style FROM NVTX_EVENTS n LEFT JOIN StringIds t ON t.id = n.textId LEFT JOIN "
    "domains d ON d.pid = (n.globalTid >> 24) & 16777215 AND d.domainId = n.domainId WHERE "
    "n.eventType IN (59, 60, 70, 71) AND n.\"end\" IS NOT NULL AND n.start IS NOT NULL), att AS "
    "MATERIALIZED "
    "(SELECT r.rid, r.start AS rs, r.\"end\" AS re, r.name, r.style, r.pid, r.tid, l.kname, l.kd, "
    "l.krow FROM launches l JOIN ranges r ON "
    "r.pid = l.pid AND r.tid = l.tid AND r.start <= l.cs AND l.ce <= r.\"end\"), ranked AS "
    "(SELECT *, ROW_NUMBER() OVER (PARTITION BY name, style, pid, tid, kname ORDER BY kd) AS rn, "
    "COUNT(*) OVER (PARTITION BY name, style, pid, tid, kname) AS cnt FROM att) ";

/// The exports with kernels, runtime calls and NVTX ranges (with domains).
std::vector<fs::path> exports_with_nvtx_launches(fs::path const& traces) {
  std::vector<fs::path> out;
  for (auto const& f : nsys_exports(traces)) {
    oracle_db db(f);
    if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL") && db.has_table("NVTX_EVENTS") &&
        db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME") && db.has_column("NVTX_EVENTS", "domainId"))
      out.push_back(f);
  }
  return out;
}

TEST(NvtxKernels, SummaryMatchesSqlOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int with_rows = 0;
  for (auto const& f : exports_with_nvtx_launches(traces)) {
    oracle_db db(f);
    SCOPED_TRACE(f.string());
    auto const expected = db.query(
        std::string(attributions_sql) +
        ", g AS (SELECT name, style, pid, tid, COUNT(DISTINCT rid) AS ri, COUNT(*) AS n, SUM(kd) "
        "AS tot, AVG(kd) AS av, AVG(CASE WHEN rn IN ((cnt + 1) / 2, (cnt + 2) / 2) THEN kd END) AS "
        "med, MIN(kd) AS mn, MAX(kd) AS mx, kname FROM ranked GROUP BY name, style, pid, tid, "
        "kname) SELECT g.name, g.style, g.pid, g.tid, g.ri, g.n, g.tot, g.av, g.med, g.mn, g.mx, "
        "g.kname, (SELECT SUM((a.kd - g.av) * (a.kd - g.av)) FROM att a WHERE a.name = g.name AND "
        "a.style = g.style AND a.pid = g.pid AND a.tid = g.tid AND a.kname = g.kname) FROM g");
    using key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
    std::map<key, std::vector<sql_value>> want;
    for (auto const& e : expected)
      want[{e[0].s, e[1].s, std::to_string(e[2].i), std::to_string(e[3].i), e[11].s}] = e;
    auto const r = run_cli("stats --report nvtx_kern_sum --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = parse_csv(r.out);
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows.size() - 1, want.size());
    for (std::size_t i = 1; i < rows.size(); ++i) {
      auto const& row = rows[i];
      ASSERT_EQ(row.size(), 13u);
      auto const found = want.find({row[0], row[1], row[2], row[3], row[12]});
      ASSERT_NE(found, want.end()) << "row " << i << ": " << row[0] << " / " << row[12];
      auto const& e = found->second;
      EXPECT_EQ(std::stoll(row[4]), e[4].i) << "NVTX Inst, row " << i;
      EXPECT_EQ(std::stoll(row[5]), e[5].i) << "Kern Inst, row " << i;
      EXPECT_EQ(std::stoll(row[6]), e[6].i) << "Total, row " << i;
      EXPECT_NEAR(std::stod(row[7]), e[7].d, 0.05 + 1e-6 * e[7].d) << "Avg, row " << i;
      EXPECT_NEAR(std::stod(row[8]), e[8].d, 0.05 + 1e-6 * e[8].d) << "Med, row " << i;
      EXPECT_EQ(std::stoll(row[9]), e[9].i) << "Min, row " << i;
      EXPECT_EQ(std::stoll(row[10]), e[10].i) << "Max, row " << i;
      double const n = static_cast<double>(e[5].i);
      double const sd = n > 1 ? std::sqrt(e[12].d / (n - 1)) : 0.0;
      EXPECT_NEAR(std::stod(row[11]), sd, 0.05 + 1e-6 * sd) << "StdDev, row " << i;
    }
    if (rows.size() > 1) ++with_rows;
  }
  EXPECT_GE(with_rows, 3);
}

TEST(NvtxKernels, KernelSummaryByInnermostRangeMatchesSql) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : exports_with_nvtx_launches(traces)) {
    oracle_db db(f);
    SCOPED_TRACE(f.string());
    // The innermost enclosing range per kernel: the latest start, then the earliest end, then
    // the later row; kernels outside every range keep their name.
    auto const expected = db.query(
        std::string(attributions_sql) +
        ", inner AS MATERIALIZED (SELECT krow, name FROM (SELECT krow, name, ROW_NUMBER() OVER "
        "(PARTITION BY "
        "krow ORDER BY rs DESC, re ASC, rid DESC) AS k FROM att) WHERE k = 1), named AS (SELECT "
        "coalesce(i.name || '/', '') || s.value AS n, k.\"end\" - k.start AS d FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName LEFT JOIN inner i "
        "ON i.krow = k.rowid) SELECT n, SUM(d), COUNT(*), MIN(d), MAX(d) FROM named GROUP BY n");
    std::map<std::string, std::vector<sql_value>> want;
    for (auto const& e : expected) want[e[0].s] = e;
    auto const r = run_cli("stats --report cuda_gpu_kern_sum:nvtx-name --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = parse_csv(r.out);
    ASSERT_EQ(rows.size() - 1, want.size());
    for (std::size_t i = 1; i < rows.size(); ++i) {
      auto const found = want.find(rows[i][8]);
      ASSERT_NE(found, want.end()) << rows[i][8];
      EXPECT_EQ(std::stoll(rows[i][1]), found->second[1].i) << rows[i][8];
      EXPECT_EQ(std::stoll(rows[i][2]), found->second[2].i) << rows[i][8];
      EXPECT_EQ(std::stoll(rows[i][5]), found->second[3].i) << rows[i][8];
      EXPECT_EQ(std::stoll(rows[i][6]), found->second[4].i) << rows[i][8];
    }
  }
}

}  // namespace nvtx_kernels_test
