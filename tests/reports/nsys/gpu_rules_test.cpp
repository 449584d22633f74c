// SPDX-License-Identifier: Apache-2.0
// nsys's gpu_gaps and gpu_time_util rules through `stats --report … --format csv`, against SQL
// written from the documented rules (nsys notes §2.3) on every real export and on generated
// exports with planted data-loader gaps: the GPU operations (kernels, memcpys, memsets with
// start > 0, and the flush/stop overhead ranges strictly inside each device's span), the k-th
// end paired with the (k+1)-th start, the chunks of ceil(span / chunks) and runs of low chunks
// merged by gaps-and-islands. Also the Kineto path (rank, device; no context) on a hand-made
// trace, and the option errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace gpu_rules_test {

namespace fs = std::filesystem;
using tracesweep::test::oracle_db;
using tracesweep::test::parse_csv;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

/// The GPU operations of an export (+ overhead pseudo-operations) as CTEs `ops`, `span`,
/// `allops`; "" when it has no GPU table.
std::string operations_sql(oracle_db& db) {
  std::string ops;
  for (auto const* t :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
    if (db.has_table(t))
      ops += std::string(ops.empty() ? "" : " UNION ALL ") +
             "SELECT start, \"end\", (globalPid >> 24) & 16777215 AS pid, deviceId FROM " + t +
             " WHERE start > 0";
  if (ops.empty()) return "";
  std::string sql = "WITH ops AS (" + ops +
                    "), span AS (SELECT pid, deviceId, MIN(start) AS first, MAX(\"end\") AS last "
                    "FROM ops GROUP BY pid, deviceId), ";
  if (db.has_table("PROFILER_OVERHEAD"))
    sql +=
        "overhead AS (SELECT o.start, o.\"end\", (o.globalTid >> 24) & 16777215 AS pid FROM "
        "PROFILER_OVERHEAD o JOIN StringIds s ON s.id = o.nameId WHERE s.value IN ('CUDA "
        "profiling data flush overhead', 'CUDA profiling stop overhead', 'CUDA profiling "
        "overhead')), allops AS (SELECT * FROM ops UNION ALL SELECT h.start, h.\"end\", h.pid, "
        "sp.deviceId FROM overhead h JOIN span sp ON sp.pid = h.pid AND h.start > sp.first AND "
        "h.\"end\" < sp.last)";
  else
    sql += "allops AS (SELECT * FROM ops)";
  return sql;
}

/// The context column nsys would print: the one context of (pid, device), else empty.
std::string context_of(oracle_db& db, std::int64_t pid, std::int64_t device) {
  std::string parts;
  for (auto const* t :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
    if (db.has_table(t))
      parts += std::string(parts.empty() ? "" : " UNION ") + "SELECT contextId FROM " + t +
               " WHERE start > 0 AND deviceId = " + std::to_string(device) +
               " AND ((globalPid >> 24) & 16777215) = " + std::to_string(pid);
  auto const rows = db.query(parts);
  return rows.size() == 1 ? std::to_string(rows[0][0].i) : std::string();
}

/// µs as a decimal number of ms ("0.5", "500").
std::string fmt_ms(std::int64_t us) {
  auto out = std::to_string(us / 1000);
  if (us % 1000) {
    auto frac = std::to_string(1000 + us % 1000).substr(1);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

/// The rule's CSV rows without the header.
std::vector<std::vector<std::string>> cli_rows(std::string const& report, fs::path const& f) {
  auto const r = run_cli("stats --report " + report + " --format csv " + quote(f));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto rows = parse_csv(r.out);
  EXPECT_FALSE(rows.empty());
  if (!rows.empty()) rows.erase(rows.begin());
  return rows;
}

/// gpu_gaps with gap=GAP_US/1000 ms against the SQL.
void check_gaps(fs::path const& f, std::int64_t gap_us, std::size_t rows) {
  auto const gap_ms = fmt_ms(gap_us);
  SCOPED_TRACE(f.string() + " gap=" + gap_ms);
  oracle_db db(f);
  auto const ops = operations_sql(db);
  if (ops.empty()) return;
  auto const expected = db.query(
      ops +
      ", starts AS (SELECT pid, deviceId, start, ROW_NUMBER() OVER (PARTITION BY pid, deviceId "
      "ORDER BY start) AS k FROM allops), ends AS (SELECT pid, deviceId, \"end\", ROW_NUMBER() "
      "OVER (PARTITION BY pid, deviceId ORDER BY \"end\") AS k FROM allops) SELECT s.start - "
      "e.\"end\" AS d, e.\"end\" AS st, e.pid, e.deviceId FROM ends e JOIN starts s ON s.pid = "
      "e.pid AND s.deviceId = e.deviceId AND s.k = e.k + 1 WHERE s.start > e.\"end\" AND "
      "s.start - e.\"end\" > " +
      std::to_string(gap_us * 1000) + " ORDER BY d DESC, st, e.pid, e.deviceId LIMIT " +
      std::to_string(rows));
  auto const got = cli_rows("gpu_gaps:gap=" + gap_ms + ":rows=" + std::to_string(rows), f);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto const& e = expected[i];
    std::vector<std::string> const want = {std::to_string(i + 1),  std::to_string(e[0].i),
                                           std::to_string(e[1].i), std::to_string(e[2].i),
                                           std::to_string(e[3].i), context_of(db, e[2].i, e[3].i)};
    EXPECT_EQ(got[i], want) << "row " << i + 1;
  }
}

void check_time_util(fs::path const& f, double threshold, int chunks) {
  SCOPED_TRACE(f.string() + " threshold=" + std::to_string(threshold) +
               " chunks=" + std::to_string(chunks));
  oracle_db db(f);
  auto const ops = operations_sql(db);
  if (ops.empty()) return;
  auto const c = std::to_string(chunks);
  auto const expected = db.query(
      ops + ", size AS (SELECT pid, deviceId, first, last, (last - first + " + c + " - 1) / " + c +
      " AS cs FROM span WHERE last > first), chunk(pid, deviceId, i, lo, hi, last, cs) AS "
      "(SELECT pid, deviceId, 0, first, MIN(first + cs, last), last, cs FROM size UNION ALL "
      "SELECT pid, deviceId, i + 1, lo + cs, MIN(lo + 2 * cs, last), last, cs FROM chunk WHERE "
      "lo + cs < last), busy AS (SELECT c.pid, c.deviceId, c.i, c.lo, c.hi, "
      "COALESCE(SUM(MIN(a.\"end\", c.hi) - MAX(a.start, c.lo)), 0) AS b FROM chunk c LEFT JOIN "
      "allops a ON a.pid = c.pid AND a.deviceId = c.deviceId AND a.start < c.hi AND a.\"end\" > "
      "c.lo GROUP BY c.pid, c.deviceId, c.i), low AS (SELECT *, i - ROW_NUMBER() OVER (PARTITION "
      "BY pid, deviceId ORDER BY i) AS grp FROM busy WHERE b * 100.0 / (hi - lo) < " +
      std::to_string(threshold) +
      ") SELECT SUM(b) * 100.0 / SUM(hi - lo), SUM(hi - lo), MIN(lo) AS st, pid, deviceId FROM "
      "low GROUP BY pid, deviceId, grp ORDER BY pid, deviceId, st");
  auto const got =
      cli_rows("gpu_time_util:threshold=" + std::to_string(threshold) + ":chunks=" + c, f);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto const& e = expected[i];
    ASSERT_EQ(got[i].size(), 7u);
    EXPECT_EQ(got[i][0], std::to_string(i + 1));
    EXPECT_NEAR(std::stod(got[i][1]), e[0].d, 0.05 + 1e-9) << "row " << i + 1;
    std::vector<std::string> const rest(got[i].begin() + 2, got[i].end());
    std::vector<std::string> const want = {std::to_string(e[1].i), std::to_string(e[2].i),
                                           std::to_string(e[3].i), std::to_string(e[4].i),
                                           context_of(db, e[3].i, e[4].i)};
    EXPECT_EQ(rest, want) << "row " << i + 1;
  }
}

TEST(GpuRules, MatchTheDocumentedSqlOnEveryRealExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = tracesweep::test::nsys_exports(traces);
  ASSERT_GE(files.size(), 10u);
  for (auto const& f : files) {
    check_gaps(f, 500'000, 50);  // nsys's defaults
    check_gaps(f, 0, 1000000);
    check_time_util(f, 50, 30);
    check_time_util(f, 90, 100);
  }
}

TEST(GpuRules, MatchTheSqlOnGeneratedJobsWithPlantedGaps) {
  auto const dir = fs::temp_directory_path() / ("ts_gpu_rules_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (auto const* plant : {"data-loader", "all"}) {
    auto const f = dir / (std::string(plant) + ".sqlite");
    auto const g = run_cli(std::string("generate --ranks 2 --devices 2 --steps 6 "
                                       "--kernels-per-step 40 --plant ") +
                           plant + " -o " + quote(f));
    ASSERT_EQ(g.exit_code, 0) << g.err;
    check_gaps(f, 500, 1000);
    check_time_util(f, 50, 30);
    check_time_util(f, 80, 200);
    EXPECT_FALSE(cli_rows("gpu_gaps:gap=0.5", f).empty()) << "the planted data-loader gaps";
  }
  fs::remove_all(dir);
}

TEST(GpuRules, KinetoInputsAreKeyedByRankAndDevice) {
  // The same generated job as nsys SQLite and as Kineto JSON: the same gap durations per
  // (rank, device); Kineto has no context.
  auto const dir = fs::temp_directory_path() / ("ts_gpu_rules_k" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string const job = "generate --ranks 2 --steps 5 --kernels-per-step 40 --plant data-loader ";
  ASSERT_EQ(run_cli(job + "-o " + quote(dir / "job.sqlite")).exit_code, 0);
  ASSERT_EQ(run_cli(job + "--format kineto-json -o " + quote(dir / "k-")).exit_code, 0);
  auto const nsys = cli_rows("gpu_gaps:gap=0.5:rows=0", dir / "job.sqlite");
  auto const r = run_cli("stats --report gpu_gaps:gap=0.5:rows=0 --format csv " +
                         quote(dir / "k-rank-0.json") + " " + quote(dir / "k-rank-1.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto kineto = parse_csv(r.out);
  ASSERT_FALSE(kineto.empty());
  EXPECT_EQ(kineto[0], (std::vector<std::string>{"Row#", "Duration (ns)", "Start (ns)", "PID",
                                                 "Device ID", "Context ID", "Rank", "File"}));
  kineto.erase(kineto.begin());
  ASSERT_FALSE(nsys.empty());
  auto key = [](std::vector<std::string> const& row) {  // (rank, device, duration)
    return row[3] + "/" + row[4] + "/" + row[1];
  };
  std::multiset<std::string> a, b;
  for (auto const& row : nsys) a.insert(key(row));
  for (auto const& row : kineto) {
    b.insert(key(row));
    EXPECT_EQ(row[5], "");      // no context
    EXPECT_EQ(row[3], row[6]);  // rank = the file's recipe rank here
  }
  EXPECT_EQ(a, b);
  fs::remove_all(dir);
}

TEST(GpuRules, OptionErrorsAreUsageErrors) {
  auto const f = std::string(" ") + quote(fs::path(TRACESWEEP_SAMPLE));
  for (auto const* bad :
       {"gpu_gaps:foo=1", "gpu_gaps:gap=-1", "gpu_gaps:gap", "gpu_gaps:rows=1.5",
        "gpu_time_util:chunks=0", "gpu_time_util:chunks=1001", "gpu_time_util:gap=5",
        "cuda_api_sum:base", "cuda_gpu_kern_sum:nope", "no_such_report"}) {
    auto const r = run_cli(std::string("stats --report ") + bad + f);
    EXPECT_EQ(r.exit_code, 1) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find(std::string("--report ") + bad), std::string::npos) << r.err;
  }
  auto const merged = run_cli("stats --merge --report gpu_gaps" + f);
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
}

}  // namespace gpu_rules_test
