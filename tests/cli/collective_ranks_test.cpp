// SPDX-License-Identifier: Apache-2.0
// overview --table collectives and collective_ranks through the binary: every real trace (each
// Kineto folder one job, each nsys export one job) runs without error, the two tables count the
// same collectives per rank, collective_ranks has one row per rank with NCCL kernels; a job without
// NCCL kernels gets an empty table and one stderr warning; the two-process nsys export's CSV rows
// say what match_collectives computes (tests/analysis/collectives_test.cpp checks that against a
// brute-force matching).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

using tracesweep::test::quote;
using tracesweep::test::run_cli;

TEST(collectives, every_real_trace_runs_and_the_tables_agree_on_the_calls) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  for (auto const& job : tracesweep::test::real_trace_jobs(dir)) {
    SCOPED_TRACE(job.string());
    auto const r = run_cli("overview --table collectives --format json " + quote(job));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const ranks = run_cli("overview --table collective_ranks --format json " + quote(job));
    ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
    simdjson::dom::parser p1, p2;
    simdjson::dom::array rows, rank_rows;
    ASSERT_EQ(p1.parse(r.out)["collectives"].get_array().get(rows), simdjson::SUCCESS) << r.out;
    ASSERT_EQ(p2.parse(ranks.out)["collective_ranks"].get_array().get(rank_rows),
              simdjson::SUCCESS);
    if (rows.size() == 0) {
      EXPECT_NE(r.err.find("warning: collectives: no NCCL kernels in the job"), std::string::npos)
          << r.err;
    }
    // Each rank's calls over its collectives rows = its collectives in collective_ranks.
    std::map<std::int64_t, std::int64_t> calls;
    for (auto row : rows)
      calls[row["rank"].get_int64().value()] += row["calls"].get_int64().value();
    std::map<std::int64_t, std::int64_t> collectives;
    for (auto row : rank_rows)
      collectives[row["rank"].get_int64().value()] = row["collectives"].get_int64().value();
    EXPECT_EQ(calls, collectives);
  }
}

TEST(collective_ranks, every_real_trace_runs_and_writes_one_row_per_rank_with_collectives) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const jobs = tracesweep::test::real_trace_jobs(dir);
  ASSERT_GE(jobs.size(), 20u);
  std::size_t with_collectives = 0;
  for (auto const& job : jobs) {
    SCOPED_TRACE(job.string());
    auto const r = run_cli("overview --table collective_ranks --format json " + quote(job));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    simdjson::dom::array rows;
    ASSERT_EQ(doc["collective_ranks"].get_array().get(rows), simdjson::SUCCESS) << r.out;
    if (rows.size() == 0) {
      EXPECT_NE(r.err.find("warning: collective_ranks: no NCCL kernels in the job"),
                std::string::npos)
          << r.err;
      continue;
    }
    ++with_collectives;
    for (auto row : rows) {
      std::int64_t collectives = 0, matched = 0;
      ASSERT_EQ(row["collectives"].get_int64().get(collectives), simdjson::SUCCESS);
      ASSERT_EQ(row["matched"].get_int64().get(matched), simdjson::SUCCESS);
      EXPECT_GT(collectives, 0);
      EXPECT_LE(matched, collectives);
    }
  }
  EXPECT_GE(with_collectives, 4u);  // hta_nccl_allreduce, trace_filter_2rank, the nsys-ai pairs…
}

TEST(collective_ranks, two_processes_of_one_export_wait_for_each_other) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const r = run_cli("overview --table collective_ranks --format csv " +
                         quote(dir / "nsys/nsys-ai/mfu_2gpu_before.sqlite"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Header and two ranks; both ranks have a wait (neither always arrives first).
  auto const header = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(header, "rank,collectives,matched,wait_ns,transfer_ns,last_arrivals,wait_share");
  std::size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 3u) << r.out;
  EXPECT_EQ(r.out.find(",,"), std::string::npos) << r.out;  // no null cell across two ranks
}
