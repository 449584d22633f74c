// SPDX-License-Identifier: Apache-2.0
// nvtx_gpu_proj_sum through `stats --format csv` against an oracle on every real export with NVTX
// ranges: SQL projects each range (the kernels, memcpys and memsets whose launching call lies
// inside it on its process and thread), and a brute-force pass over every pair of ranges of a
// thread gives each range's nesting level and direct children.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace nvtx_projection_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

/// The ranges (rid, start, end, pid, tid, name, style) and the launches of GPU operations (cs, ce,
/// pid, tid, os, oe) as CTEs.
constexpr char const* ranges_and_launches_sql =
    "WITH calls AS MATERIALIZED (SELECT rowid AS rid, start, \"end\", globalTid, correlationId, "
    "(globalTid >> 24) & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS "
    "NOT NULL), first AS MATERIALIZED (SELECT pid, correlationId, MIN(rid) AS rid FROM calls "
    "GROUP BY pid, correlationId), domains AS (SELECT DISTINCT (globalTid >> 24) & 16777215 AS "
    "pid, domainId, text AS dname FROM NVTX_EVENTS WHERE eventType = 75), ranges AS MATERIALIZED "
    "(SELECT n.rowid AS rid, n.start, n.\"end\", (n.globalTid >> 24) & 16777215 AS pid, "
    "n.globalTid & 16777215 AS tid, coalesce(d.dname || ':', '') || coalesce(n.text, t.value, '') "
    "AS name, CASE WHEN n.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END AS style FROM "
    "NVTX_EVENTS n LEFT JOIN StringIds t ON t.id = n.textId LEFT JOIN domains d ON d.pid = "
    "(n.globalTid >> 24) & 16777215 AND d.domainId = n.domainId WHERE n.eventType IN (59, 60, 70, "
    "71) AND n.\"end\" IS NOT NULL AND n.start IS NOT NULL) ";

/// "" when the export has no GPU operation table.
std::string launches_sql(oracle_db& db) {
  std::string ops;
  for (auto const* t :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
    if (db.has_table(t))
      ops += std::string(ops.empty() ? "" : " UNION ALL ") +
             "SELECT start, \"end\", globalPid, correlationId FROM " + t;
  if (ops.empty()) return "";
  return ", ops AS (" + ops +
         "), launches AS MATERIALIZED (SELECT c.start AS cs, c.\"end\" AS ce, c.pid AS pid, "
         "c.globalTid & 16777215 AS tid, o.start AS os, o.\"end\" AS oe FROM ops o JOIN first f "
         "ON f.pid = ((o.globalPid >> 24) & 16777215) AND f.correlationId = o.correlationId JOIN "
         "calls c ON c.rid = f.rid) ";
}

struct range {
  std::int64_t rid, start, end, pid, tid;
  std::int64_t level = 0, children = 0;
};

/// Level and children of every range by brute force over the pairs of each thread.
void nest(std::vector<range>& rs) {
  auto encloses = [](range const& b, range const& a) {
    return b.pid == a.pid && b.tid == a.tid && b.start <= a.start && b.end >= a.end &&
           (b.start < a.start || b.end > a.end || b.rid < a.rid);
  };
  std::sort(rs.begin(), rs.end(), [](auto const& a, auto const& b) {
    return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid);
  });
  for (std::size_t lo = 0; lo < rs.size();) {
    auto hi = lo;
    while (hi < rs.size() && rs[hi].pid == rs[lo].pid && rs[hi].tid == rs[lo].tid) ++hi;
    for (auto a = lo; a < hi; ++a)
      for (auto b = lo; b < hi; ++b)
        if (encloses(rs[b], rs[a])) ++rs[a].level;
    for (auto a = lo; a < hi; ++a)
      for (auto b = lo; b < hi; ++b)
        if (encloses(rs[b], rs[a]) && rs[a].level == rs[b].level + 1) ++rs[b].children;
    lo = hi;
  }
}

TEST(NvtxProjection, SummaryMatchesTheOracleOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int with_rows = 0;
  for (auto const& f : nsys_exports(traces)) {
    oracle_db db(f);
    if (!db.has_table("NVTX_EVENTS") || !db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME") ||
        !db.has_column("NVTX_EVENTS", "domainId"))
      continue;
    SCOPED_TRACE(f.string());
    auto const launches = launches_sql(db);
    if (launches.empty()) continue;
    std::string const base = ranges_and_launches_sql + launches;
    std::vector<range> all;
    for (auto const& r : db.query(base + "SELECT rid, start, \"end\", pid, tid FROM ranges"))
      all.push_back({r[0].i, r[1].i, r[2].i, r[3].i, r[4].i});
    nest(all);
    std::map<std::int64_t, range const*> by_rid;
    for (auto const& r : all) by_rid[r.rid] = &r;
    auto const projected = db.query(
        base +
        "SELECT r.rid, r.name, r.style, r.\"end\" - r.start, MAX(l.oe) - MIN(l.os), COUNT(*) FROM "
        "ranges r JOIN launches l ON l.pid = r.pid AND l.tid = r.tid AND r.start <= l.cs AND l.ce "
        "<= r.\"end\" GROUP BY r.rid");
    struct sums {
      std::int64_t n = 0, range = 0, ops = 0, levels = 0, children = 0;
      std::vector<std::int64_t> spans;
    };
    std::map<std::pair<std::string, std::string>, sums> want;
    for (auto const& p : projected) {
      auto& s = want[{p[1].s, p[2].s}];
      ++s.n, s.range += p[3].i, s.ops += p[5].i;
      s.spans.push_back(p[4].i);
      auto const* r = by_rid.at(p[0].i);
      s.levels += r->level, s.children += r->children;
    }
    auto const out = run_cli("stats --report nvtx_gpu_proj_sum --format csv " + quote(f));
    ASSERT_EQ(out.exit_code, 0) << out.err;
    auto const rows = parse_csv(out.out);
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows.size() - 1, want.size());
    for (std::size_t i = 1; i < rows.size(); ++i) {
      auto const& row = rows[i];
      ASSERT_EQ(row.size(), 14u);
      auto it = want.find({row[0], row[1]});
      ASSERT_NE(it, want.end()) << row[0];
      auto& s = it->second;
      std::sort(s.spans.begin(), s.spans.end());
      std::int64_t total = 0;
      for (auto v : s.spans) total += v;
      double const n = static_cast<double>(s.n), mean = static_cast<double>(total) / n;
      auto const m = s.spans.size();
      double const median =
          (static_cast<double>(s.spans[(m - 1) / 2]) + static_cast<double>(s.spans[m / 2])) / 2;
      double ss = 0;
      for (auto v : s.spans)
        ss += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
      double const sd = m > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
      SCOPED_TRACE(row[0]);
      EXPECT_EQ(std::stoll(row[2]), total);
      EXPECT_EQ(std::stoll(row[3]), s.range);
      EXPECT_EQ(std::stoll(row[4]), s.n);
      EXPECT_NEAR(std::stod(row[5]), mean, 0.05 + 1e-6 * mean);
      EXPECT_NEAR(std::stod(row[6]), median, 0.05 + 1e-6 * median);
      EXPECT_EQ(std::stoll(row[7]), s.spans.front());
      EXPECT_EQ(std::stoll(row[8]), s.spans.back());
      EXPECT_NEAR(std::stod(row[9]), sd, 0.05 + 1e-6 * sd);
      EXPECT_EQ(std::stoll(row[10]), s.ops);
      EXPECT_NEAR(std::stod(row[11]), static_cast<double>(s.ops) / n, 0.05 + 1e-9);
      EXPECT_NEAR(std::stod(row[12]), static_cast<double>(s.levels) / n, 0.05 + 1e-9);
      EXPECT_NEAR(std::stod(row[13]), static_cast<double>(s.children) / n, 0.05 + 1e-9);
    }
    if (rows.size() > 1) ++with_rows;
  }
  EXPECT_GE(with_rows, 3);
}

}  // namespace nvtx_projection_test
