// SPDX-License-Identifier: Apache-2.0
// cuda_kern_exec_trace and cuda_kern_exec_sum through `stats --format csv`, against SQL over every
// real export and the bundled sample: each kernel joined to the first runtime call of its process
// with its correlation id; queue = kernel start − call end when positive; per (PID, TID, device,
// API, kernel) the count, the queued count and, per phase, avg, median (the mean of the two
// middle values), min, max and sample standard deviation.
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

namespace kernel_exec_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

std::vector<fs::path> exports_with_launches() {
  std::vector<fs::path> out;
  for (auto const& f : nsys_exports(traces_dir())) {
    oracle_db db(f);
    if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL") && db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME"))
      out.push_back(f);
  }
  out.emplace_back(fs::path(TRACESWEEP_SAMPLE));
  return out;
}

/// The launches: one row per kernel with its call (the first call of its process with its
/// correlation id), as columns st (call start), ad, qs, qd, ks, kd, td, pid, tid, dev, api,
/// grid, block, kname, krow.
constexpr char const* launches_sql =
    "WITH calls AS (SELECT rowid AS rid, start, \"end\", globalTid, nameId, correlationId, "
    "(globalTid >> 24) & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS "
    "NOT NULL), first AS (SELECT pid, correlationId, MIN(rid) AS rid FROM calls GROUP BY pid, "
    "correlationId), launches AS (SELECT c.start AS st, c.\"end\" - c.start AS ad, CASE WHEN "
    "k.start > c.\"end\" THEN c.\"end\" END AS qs, CASE WHEN k.start > c.\"end\" THEN k.start - "
    "c.\"end\" END AS qd, k.start AS ks, k.\"end\" - k.start AS kd, k.\"end\" - c.start AS td, "
    "c.pid AS pid, c.globalTid & 16777215 AS tid, k.deviceId AS dev, CASE WHEN substr(a.value, "
    "-6, 2) = '_v' THEN substr(a.value, 1, length(a.value) - 6) ELSE a.value END AS api, "
    "printf('%4d %4d %4d', k.gridX, k.gridY, k.gridZ) AS grid, printf('%4d %4d %4d', k.blockX, "
    "k.blockY, k.blockZ) AS block, s.value AS kname, k.rowid AS krow FROM "
    "CUPTI_ACTIVITY_KIND_KERNEL k JOIN first f ON f.pid = ((k.globalPid >> 24) & 16777215) AND "
    "f.correlationId = k.correlationId JOIN calls c ON c.rid = f.rid JOIN StringIds s ON s.id = "
    "k.demangledName JOIN StringIds a ON a.id = c.nameId) ";

std::string text_of(sql_value const& v) {
  if (v.type == SQLITE_NULL) return "";
  if (v.type == SQLITE_INTEGER) return std::to_string(v.i);
  return v.s;
}

TEST(KernelExec, TraceMatchesSqlOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : exports_with_launches()) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    auto const expected = db.query(std::string(launches_sql) +
                                   "SELECT st, ad, qs, qd, ks, kd, td, pid, tid, dev, api, grid, "
                                   "block, kname FROM launches ORDER BY st, ks, krow");
    auto const r = run_cli("stats --report cuda_kern_exec_trace --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = parse_csv(r.out);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0][0], "API Start (ns)");
    ASSERT_EQ(rows.size() - 1, expected.size());
    EXPECT_FALSE(expected.empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      std::vector<std::string> want;
      for (auto const& v : expected[i]) want.push_back(text_of(v));
      ASSERT_EQ(rows[i + 1], want) << "row " << i + 1;
    }
  }
}

TEST(KernelExec, SummaryMatchesSqlOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  // Per (group, phase): n, avg, median, min, max, sample variance.
  std::string const stats =
      std::string(launches_sql) +
      ", phases(pid, tid, dev, api, kname, phase, v) AS (SELECT pid, tid, dev, api, kname, 'T', td "
      "FROM launches UNION ALL SELECT pid, tid, dev, api, kname, 'A', ad FROM launches UNION ALL "
      "SELECT pid, tid, dev, api, kname, 'Q', qd FROM launches WHERE qd IS NOT NULL UNION ALL "
      "SELECT pid, tid, dev, api, kname, 'K', kd FROM launches), ranked AS (SELECT *, "
      "ROW_NUMBER() OVER (PARTITION BY pid, tid, dev, api, kname, phase ORDER BY v) AS rn, "
      "COUNT(*) OVER (PARTITION BY pid, tid, dev, api, kname, phase) AS cnt FROM phases), g AS "
      "(SELECT pid, tid, dev, api, kname, phase, COUNT(*) AS n, AVG(v) AS av, AVG(CASE WHEN rn IN "
      "((cnt + 1) / 2, (cnt + 2) / 2) THEN v END) AS med, MIN(v) AS mn, MAX(v) AS mx FROM ranked "
      "GROUP BY pid, tid, dev, api, kname, phase) SELECT g.pid, g.tid, g.dev, g.api, g.kname, "
      "g.phase, g.n, g.av, g.med, g.mn, g.mx, (SELECT SUM((p.v - g.av) * (p.v - g.av)) FROM "
      "phases p WHERE p.pid = g.pid AND p.tid = g.tid AND p.dev = g.dev AND p.api = g.api AND "
      "p.kname = g.kname AND p.phase = g.phase) AS ss FROM g";
  for (auto const& f : exports_with_launches()) {
    SCOPED_TRACE(f.string());
    oracle_db db(f);
    using key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
    std::map<key, std::map<std::string, std::vector<sql_value>>> expected;
    for (auto const& row : db.query(stats))
      expected[{text_of(row[0]), text_of(row[1]), text_of(row[2]), row[3].s, row[4].s}][row[5].s] =
          row;
    auto const r = run_cli("stats --report cuda_kern_exec_sum --format csv " + quote(f));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const rows = parse_csv(r.out);
    ASSERT_EQ(rows.size() - 1, expected.size());
    for (std::size_t i = 1; i < rows.size(); ++i) {
      auto const& row = rows[i];
      ASSERT_EQ(row.size(), 27u);
      auto const found = expected.find({row[0], row[1], row[2], row[25], row[26]});
      ASSERT_NE(found, expected.end()) << "row " << i;
      auto const& phases = found->second;
      EXPECT_EQ(std::stoll(row[3]), phases.at("T")[6].i);
      EXPECT_EQ(std::stoll(row[4]), phases.count("Q") ? phases.at("Q")[6].i : 0);
      std::size_t col = 5;
      for (auto const* phase : {"T", "A", "Q", "K"}) {
        auto const p = phases.find(phase);
        if (p == phases.end()) {
          for (int c = 0; c < 5; ++c) EXPECT_EQ(row[col + c], "") << phase;
        } else {
          auto const& e = p->second;
          auto const n = static_cast<double>(e[6].i);
          double const sd = n > 1 ? std::sqrt(e[11].d / (n - 1)) : 0.0;
          EXPECT_NEAR(std::stod(row[col]), e[7].d, 0.05 + 1e-6 * std::abs(e[7].d)) << phase;
          EXPECT_NEAR(std::stod(row[col + 1]), e[8].d, 0.05 + 1e-6 * std::abs(e[8].d)) << phase;
          EXPECT_EQ(std::stoll(row[col + 2]), e[9].i) << phase;
          EXPECT_EQ(std::stoll(row[col + 3]), e[10].i) << phase;
          EXPECT_NEAR(std::stod(row[col + 4]), sd, 0.05 + 1e-6 * sd) << phase;
        }
        col += 5;
      }
    }
  }
}

}  // namespace kernel_exec_test
