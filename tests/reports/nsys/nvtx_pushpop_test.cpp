// SPDX-License-Identifier: Apache-2.0
// nvtx_pushpop_trace through `stats --format csv`: on every real export against SQL for the
// ranges (rowid, times, process, thread, "<domain>:<text>" names) and a brute-force tree over
// every pair of ranges of a thread (tightest enclosing range as parent); on a built export with
// named and unnamed domains, identical ranges and crossing ones against hand-derived rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/nsys/generated_export.hpp"
#include "ingest/nsys/nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace nvtx_pushpop_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

/// Push/pop ranges with nsys's names: the domain's name (from its create event in the same
/// process) or nothing, ':', then the text or its registered string.
constexpr char const* ranges_sql =
    "WITH domains AS (SELECT DISTINCT (globalTid >> 24) & 16777215 AS pid, domainId, text AS dname "
    "FROM NVTX_EVENTS WHERE eventType = 75) SELECT n.rowid, n.start, n.\"end\", (n.globalTid >> "
    "24) & 16777215, n.globalTid & 16777215, coalesce(d.dname, '') || ':' || coalesce(n.text, "
    "t.value, '') FROM NVTX_EVENTS n LEFT JOIN StringIds t ON t.id = n.textId LEFT JOIN domains d "
    "ON d.pid = (n.globalTid >> 24) & 16777215 AND d.domainId = n.domainId WHERE n.eventType IN "
    "(59, 70) AND n.start IS NOT NULL AND n.\"end\" IS NOT NULL";

struct range {
  std::int64_t id = 0, start = 0, end = 0, pid = 0, tid = 0;
  std::string name;
  std::int64_t parent = -1, level = 0, children = 0, child_duration = 0;
  std::string stack;
};

/// Each range's parent by brute force: of the other ranges of its thread that enclose it, the
/// one with the least (start gap + end gap). The real exports hold no two identical ranges of a
/// thread (checked), so the parent is unique up to crossing ranges, which push/pop cannot make.
void build_tree(std::vector<range>& rs) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (std::size_t i = 0; i < rs.size(); ++i) threads[{rs[i].pid, rs[i].tid}].push_back(i);
  for (auto const& [thread, members] : threads)
    for (auto const i : members) {
      auto& a = rs[i];
      std::int64_t best = -1, tightest = 0;
      for (auto const j : members) {
        auto const& p = rs[j];
        if (j == i) continue;
        ASSERT_FALSE(p.start == a.start && p.end == a.end) << "identical ranges " << p.id;
        if (p.start > a.start || p.end < a.end) continue;
        auto const t = (a.start - p.start) + (p.end - a.end);
        if (best < 0 || t < tightest) best = p.id, tightest = t;
      }
      a.parent = best;
    }
  std::map<std::int64_t, std::size_t> at;
  for (std::size_t i = 0; i < rs.size(); ++i) at[rs[i].id] = i;
  for (auto& a : rs) {
    std::vector<std::int64_t> chain{a.id};
    for (auto p = a.parent; p >= 0; p = rs[at.at(p)].parent) chain.push_back(p);
    a.level = static_cast<std::int64_t>(chain.size()) - 1;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) a.stack += ":" + std::to_string(*it);
    if (a.parent < 0) continue;
    auto& p = rs[at.at(a.parent)];
    ++p.children;
    p.child_duration += a.end - a.start;
  }
}

/// The CSV rows nsys prints for `rs`, by start, duration, then id.
std::vector<std::vector<std::string>> expected_rows(std::vector<range> rs) {
  std::sort(rs.begin(), rs.end(), [](range const& a, range const& b) {
    return std::tuple(a.start, a.end - a.start, a.id) < std::tuple(b.start, b.end - b.start, b.id);
  });
  std::vector<std::vector<std::string>> out;
  for (auto const& r : rs) {
    auto const d = r.end - r.start;
    auto s = [](std::int64_t v) { return std::to_string(v); };
    out.push_back({s(r.start), s(r.end), s(d), s(r.child_duration), s(d - r.child_duration), r.name,
                   s(r.pid), s(r.tid), s(r.level), s(r.children), s(r.id),
                   r.parent < 0 ? "" : s(r.parent), r.stack,
                   std::string(static_cast<std::size_t>(2 * r.level), '-') + r.name});
  }
  return out;
}

std::vector<std::string> const header{
    "Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)",
    "Name",       "PID",      "TID",           "Lvl",           "NumChild",
    "RangeId",    "ParentId", "RangeStack",    "NameTree"};

TEST(NvtxPushPop, TraceMatchesSqlAndABruteForceTreeOnEveryExport) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int with_rows = 0;
  std::vector<std::string> checked;
  std::size_t checked_rows = 0;
  for (auto const& f : nsys_exports(traces)) {
    oracle_db db(f);
    if (!db.has_table("NVTX_EVENTS") || !db.has_column("NVTX_EVENTS", "domainId")) continue;
    SCOPED_TRACE(f.string());
    std::vector<range> rs;
    for (auto const& r : db.query(ranges_sql)) {
      range x;
      x.id = r[0].i, x.start = r[1].i, x.end = r[2].i, x.pid = r[3].i, x.tid = r[4].i;
      x.name = r[5].s;
      rs.push_back(std::move(x));
    }
    build_tree(rs);
    auto const want = expected_rows(rs);
    auto const out = run_cli("stats --report nvtx_pushpop_trace --format csv " + quote(f));
    ASSERT_EQ(out.exit_code, 0) << out.err;
    auto const rows = parse_csv(out.out);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0], header);
    ASSERT_EQ(rows.size() - 1, want.size());
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(rows[i + 1], want[i]) << "row " << i;
    if (!want.empty()) {
      ++with_rows;
      if (checked.size() < 2) checked.push_back(quote(f)), checked_rows += want.size();
    }
  }
  EXPECT_GE(with_rows, 5);
  // Two exports at once: the same rows, each with its file in a trailing File column.
  ASSERT_EQ(checked.size(), 2u);
  auto const both =
      run_cli("stats --report nvtx_pushpop_trace --format csv " + checked[0] + " " + checked[1]);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  auto const rows = parse_csv(both.out);
  ASSERT_EQ(rows.size() - 1, checked_rows);
  EXPECT_EQ(rows[0].back(), "File");
}

TEST(NvtxPushPop, DomainsIdenticalAndCrossingRangesInABuiltExport) {
  tracesweep::event_table generated;
  temp_dir dir("pushpop");
  auto const path = write_generated_export({1, 1, 1, 3}, generated, dir, "ranges.sqlite");
  {
    oracle_db db(path, true);
    // Process 7: domain 1 named NCCL. Thread 5 nests outer ⊃ {NCCL:ncclAllReduce ⊃ inner,
    // second ⊃ twin (identical to second)}, beside a start/end range and a mark that do not
    // count. Thread 6 crosses: P [0,80] and Q [10,90] enclose a [40,60] equally tightly (Q, the
    // later, wins); b [45,48] sits in a. Process 8 names no domain, and one text is registered.
    db.exec(
        "DELETE FROM NVTX_EVENTS;"
        "INSERT INTO StringIds (id, value) VALUES (900001, 'fromId');"
        "INSERT INTO NVTX_EVENTS (rowid, start, \"end\", eventType, text, textId, globalTid, "
        "domainId) VALUES "
        "(1, 0, NULL, 75, 'NCCL', NULL, (7 << 24) | 5, 1),"
        "(10, 100, 200, 59, 'outer', NULL, (7 << 24) | 5, 0),"
        "(11, 110, 150, 59, 'ncclAllReduce', NULL, (7 << 24) | 5, 1),"
        "(12, 120, 140, 70, 'inner', NULL, (7 << 24) | 5, 0),"
        "(13, 160, 190, 59, 'second', NULL, (7 << 24) | 5, 0),"
        "(14, 160, 190, 59, 'twin', NULL, (7 << 24) | 5, 0),"
        "(15, 105, 195, 60, 'startend', NULL, (7 << 24) | 5, 0),"
        "(16, 130, NULL, 34, 'mark', NULL, (7 << 24) | 5, 0),"
        "(20, 0, 80, 59, 'P', NULL, (7 << 24) | 6, 0),"
        "(21, 10, 90, 59, 'Q', NULL, (7 << 24) | 6, 0),"
        "(22, 40, 60, 59, 'a', NULL, (7 << 24) | 6, 0),"
        "(23, 45, 48, 59, 'b', NULL, (7 << 24) | 6, 0),"
        "(30, 100, 130, 59, 'ncclSend', NULL, (8 << 24) | 5, 1),"
        "(31, 105, 110, 59, NULL, 900001, (8 << 24) | 5, 0);");
  }
  auto const out = run_cli("stats --report nvtx_pushpop_trace --format csv " + quote(path));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto const rows = parse_csv(out.out);
  std::vector<std::vector<std::string>> const want{
      header,
      {"0", "80", "80", "0", "80", ":P", "7", "6", "0", "0", "20", "", ":20", ":P"},
      {"10", "90", "80", "20", "60", ":Q", "7", "6", "0", "1", "21", "", ":21", ":Q"},
      {"40", "60", "20", "3", "17", ":a", "7", "6", "1", "1", "22", "21", ":21:22", "--:a"},
      {"45", "48", "3", "0", "3", ":b", "7", "6", "2", "0", "23", "22", ":21:22:23", "----:b"},
      {"100", "130", "30", "5", "25", ":ncclSend", "8", "5", "0", "1", "30", "", ":30",
       ":ncclSend"},
      {"100", "200", "100", "70", "30", ":outer", "7", "5", "0", "2", "10", "", ":10", ":outer"},
      {"105", "110", "5", "0", "5", ":fromId", "8", "5", "1", "0", "31", "30", ":30:31",
       "--:fromId"},
      {"110", "150", "40", "20", "20", "NCCL:ncclAllReduce", "7", "5", "1", "1", "11", "10",
       ":10:11", "--NCCL:ncclAllReduce"},
      {"120", "140", "20", "0", "20", ":inner", "7", "5", "2", "0", "12", "11", ":10:11:12",
       "----:inner"},
      {"160", "190", "30", "30", "0", ":second", "7", "5", "1", "1", "13", "10", ":10:13",
       "--:second"},
      {"160", "190", "30", "0", "30", ":twin", "7", "5", "2", "0", "14", "13", ":10:13:14",
       "----:twin"},
  };
  EXPECT_EQ(rows, want);
  // A time range keeps the ranges that overlap it (every range enclosing one among them); the
  // tree is that of the ranges kept.
  auto const part =
      run_cli("stats --report nvtx_pushpop_trace --format csv --time-range 121:125 " + quote(path));
  ASSERT_EQ(part.exit_code, 0) << part.err;
  std::vector<std::vector<std::string>> const kept{
      header,
      {"100", "130", "30", "0", "30", ":ncclSend", "8", "5", "0", "0", "30", "", ":30",
       ":ncclSend"},
      {"100", "200", "100", "40", "60", ":outer", "7", "5", "0", "1", "10", "", ":10", ":outer"},
      want[8],
      want[9]};
  EXPECT_EQ(parse_csv(part.out), kept);
}

}  // namespace nvtx_pushpop_test
