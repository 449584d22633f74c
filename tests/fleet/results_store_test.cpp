// SPDX-License-Identifier: Apache-2.0
// The results store: schema versions and migration, refusing what is not ours, runs resumed,
// and a job written then read back unchanged.
#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/results_store.hpp>

#include "fleet/fleet_test_support.hpp"

namespace tracesweep::fleet {
namespace results_store_test {

using test::sql_rows;
using test::sql_value;

job_record sample_job() {
  job_record j;
  j.path = "/t/job/rank-*.json";
  j.name = "job/rank-*.json";
  j.ranks = 2;
  j.verdict = "gpu_bound";
  j.traces = {{"/t/job/rank-0.json", 100, 5, "aa", "kineto-json", {0}, 10, true, "", {}},
              {"/t/job/rank-1.json", 200, 6, "bb", "kineto-json", {1}, 20, true, "", {}},
              {"/t/job/bad.json", 3, 7, "cc", "", {}, 0, false, "/t/job/bad.json: byte 0: x", {}}};
  device_record d;
  d.trace = 1;
  d.rank = 1;
  d.device = 3;
  d.window_ns = 1000;
  d.busy_ns = 600;
  d.idle_ns = 400;
  d.utilization = 0.6;
  d.kernel_count = 7;
  d.verdict = "cpu_bound";
  d.idle = {1, 2, 3, 4, 5, 6, 7};
  j.devices = {d};
  j.kernels = {{0, "gemm \"q\"", 3, 30, 10, 10, 9, 11, 1}};
  j.gaps = {{1, 1, 3, 100, 200, "sync"}};
  j.findings = {{1, -1, "straggler", R"({"excess":0.5,"name":"a\"b"})"}};
  j.rank_steps = {{0, 4, 250, 0.5}, {1, 4, 300, 0.6}};
  return j;
}

TEST(ResultsStore, WritesAndReadsAJobBack) {
  test::scratch_dir d("store");
  auto const db = (d / "r.sqlite").string();
  results_store store(db);
  auto const run = store.begin_run("night", "/t", "");
  auto const job = sample_job();
  store.write_job(run.id, job);
  auto const back = store.load_jobs(run.id);
  ASSERT_EQ(back.size(), 1u);
  auto const& b = back[0];
  EXPECT_EQ(b.name, job.name);
  EXPECT_EQ(b.verdict, job.verdict);
  ASSERT_EQ(b.traces.size(), 3u);
  EXPECT_EQ(b.traces[2].ok, false);
  EXPECT_EQ(b.traces[2].error, job.traces[2].error);
  EXPECT_EQ(b.traces[1].ranks, std::vector<std::int32_t>{1});
  ASSERT_EQ(b.devices.size(), 1u);
  EXPECT_EQ(b.devices[0].trace, 1);
  EXPECT_EQ(b.devices[0].idle, job.devices[0].idle);
  EXPECT_EQ(b.devices[0].utilization, 0.6);
  ASSERT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.kernels[0].name, job.kernels[0].name);
  ASSERT_EQ(b.gaps.size(), 1u);
  EXPECT_EQ(b.gaps[0].trace, 1);
  ASSERT_EQ(b.findings.size(), 1u);
  EXPECT_EQ(b.findings[0].rank, 1);
  EXPECT_EQ(b.findings[0].device, -1);
  EXPECT_EQ(b.rank_steps.size(), 2u);
  EXPECT_EQ(sql_value(db, "SELECT json_extract(detail_json, '$.name') FROM findings"), "a\"b");
  EXPECT_EQ(sql_value(db, "SELECT duration_ns FROM gaps"), "100");
  EXPECT_EQ(sql_value(db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(results_store::schema_version));
  EXPECT_EQ(store.stored_hashes().size(), 2u);  // the failed trace is analysed again
}

TEST(ResultsStore, ATraceWhoseRanksAreNotAListIsAnInputError) {
  // (found by fuzz_results_store's seeds: std::stol threw out of load_jobs, uncaught)
  test::scratch_dir d("store_ranks");
  auto const db = (d / "r.sqlite").string();
  std::int64_t run_id = 0;
  {
    results_store store(db);
    run_id = store.begin_run("night", "/t", "").id;
    store.write_job(run_id, sample_job());
  }
  for (auto const* ranks : {"x", "0,1,99999999999", "1;2"}) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    auto const sql =
        std::string("UPDATE traces SET ranks = '") + ranks + "' WHERE path LIKE '%1.json'";
    EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
    results_store const store(db, true);
    try {
      (void)store.load_jobs(run_id);
      ADD_FAILURE() << ranks << ": loaded";
    } catch (input_error const& e) {
      EXPECT_NE(std::string(e.what()).find("not a list of ranks"), std::string::npos) << e.what();
    }
  }
}

TEST(ResultsStore, AHashIsStoredOnceAndAFailedJobLeavesNothing) {
  test::scratch_dir d("store_once");
  results_store store((d / "r.sqlite").string());
  auto const run = store.begin_run("", "/t", "");
  store.write_job(run.id, sample_job());
  auto again = sample_job();
  again.path = "/t/other";
  EXPECT_THROW(store.write_job(run.id, again), input_error);  // UNIQUE(content_hash)
  EXPECT_EQ(sql_value(d / "r.sqlite", "SELECT count(*) FROM jobs"), "1");
  EXPECT_EQ(sql_value(d / "r.sqlite", "SELECT count(*) FROM kernels"), "1");
}

TEST(ResultsStore, ResumesTheRunningRunOfTheSameScan) {
  test::scratch_dir d("store_runs");
  results_store store((d / "r.sqlite").string());
  auto const a = store.begin_run("x", "/t", "0/2");
  EXPECT_EQ(store.begin_run("x", "/t", "0/2").id, a.id);
  EXPECT_NE(store.begin_run("x", "/t", "1/2").id, a.id);
  EXPECT_NE(store.begin_run("y", "/t", "0/2").id, a.id);
  store.finish_run(a.id);
  EXPECT_NE(store.begin_run("x", "/t", "0/2").id, a.id);
  EXPECT_EQ(store.find_run("latest")->id, 4);
  EXPECT_EQ(store.find_run("previous")->id, 3);
  EXPECT_EQ(store.find_run(std::to_string(a.id))->status, "complete");
  EXPECT_FALSE(store.find_run("99"));
}

TEST(ResultsStore, MigratesVersionOneKeepingItsRows) {
  test::scratch_dir d("store_migrate");
  auto const db = (d / "old.sqlite").string();
  results_store::create_at_version(db, 1);
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(h,
                     "INSERT INTO runs VALUES (1, 'old', 't', 't', '0.0', 'complete', '/t', '');"
                     "INSERT INTO jobs VALUES (1, 1, '/t/j', 'j', 1, 'gpu_bound');"
                     "INSERT INTO traces VALUES (1, 1, 1, '/t/j', 5, 0, 'h', 'x', '0', 3, "
                     "'ok', NULL);"
                     "INSERT INTO devices VALUES (1, 0, 0, 10, 5, 5, 0.5, 5, 0, 0, 0, 5, 0, "
                     "2, 'gpu_bound');",
                     nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(h);
  }
  EXPECT_EQ(sql_value(db, "PRAGMA user_version"), "1");
  results_store store(db);
  EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(results_store::schema_version));
  EXPECT_EQ(sql_value(db, "PRAGMA foreign_key_check"), "(0 rows)");
  auto const jobs = store.load_jobs(1);
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0].devices.size(), 1u);
  EXPECT_EQ(jobs[0].devices[0].busy_ns, 5);
  EXPECT_EQ(jobs[0].devices[0].idle[0], 0);  // a column version 1 lacked reads as 0
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM steps"), "0");
}

TEST(ResultsStore, RefusesNewerVersionsAndForeignDatabases) {
  test::scratch_dir d("store_refuse");
  auto const newer = (d / "newer.sqlite").string();
  results_store::create_at_version(newer, 2);
  {
    sqlite3* h = nullptr;
    sqlite3_open(newer.c_str(), &h);
    sqlite3_exec(h, "PRAGMA user_version = 9", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  try {
    results_store s(newer);
    FAIL() << "opened a newer schema";
  } catch (input_error const& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 9 is newer"), std::string::npos)
        << e.what();
  }
  auto const foreign = (d / "foreign.sqlite").string();
  {
    sqlite3* h = nullptr;
    sqlite3_open(foreign.c_str(), &h);
    sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  EXPECT_THROW(results_store s(foreign), input_error);
  EXPECT_THROW(results_store s(foreign, true), input_error);
  EXPECT_THROW(results_store s((d / "absent.sqlite").string(), true), input_error);
  EXPECT_FALSE(std::filesystem::exists(d / "absent.sqlite"));
}

}  // namespace results_store_test

}  // namespace tracesweep::fleet
