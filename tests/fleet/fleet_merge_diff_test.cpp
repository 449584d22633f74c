// SPDX-License-Identifier: Apache-2.0
// Four shards merged equal one single-process scan, row for row; diff finds a planted
// regression between two generated runs (one kernel 30 % slower, one rank's utilization down),
// by directories and by runs of one database, and nothing between identical runs.
#include <algorithm>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "fleet/fleet_test_support.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace fleet_merge_diff_test {

namespace fs = std::filesystem;

/// Every stored row by natural keys (paths, names), without ids or times.
std::vector<std::string> all_rows(fs::path const& db) {
  std::vector<std::string> out;
  for (auto const* sql :
       {"SELECT label, tool_version, status, arguments FROM runs",
        "SELECT path, name, ranks, verdict FROM jobs",
        "SELECT t.path, j.path, size_bytes, mtime_ns, content_hash, format, t.ranks, events, "
        "status, error FROM traces t JOIN jobs j USING (job_id)",
        "SELECT t.path, d.rank, device, window_ns, busy_ns, idle_ns, utilization, kernel_ns, "
        "memcpy_ns, memset_ns, communication_ns, computation_ns, overlap_ns, kernel_count, "
        "verdict, idle_data_loading_ns, idle_sync_ns, idle_memcpy_ns, idle_communication_ns, "
        "idle_host_compute_ns, idle_launch_ns, idle_unknown_ns FROM devices d JOIN traces t "
        "USING (trace_id)",
        "SELECT j.path, rank, k.name, calls, total_ns, avg_ns, median_ns, min_ns, max_ns, "
        "stddev_ns FROM kernels k JOIN jobs j USING (job_id)",
        "SELECT t.path, g.rank, device, start_ns, end_ns, duration_ns, cause FROM gaps g "
        "JOIN traces t USING (trace_id)",
        "SELECT j.path, rank, device, kind, detail_json FROM findings f JOIN jobs j USING "
        "(job_id)",
        "SELECT j.path, rank, steps, mean_step_ns, s.utilization FROM steps s JOIN jobs j "
        "USING (job_id)"}) {
    auto rows = sql_rows(db, sql);
    std::sort(rows.begin(), rows.end());
    out.push_back(std::string("-- ") + sql + " (" + std::to_string(rows.size()) + " rows)");
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

TEST(FleetMerge, FourShardsEqualOneScan) {
  scratch_dir d("shards");
  for (int j = 0; j < 10; ++j) generate_job(d / "gen" / ("job" + std::to_string(j)), 2, 300 + j);
  std::string roots = quote(d / "gen");
  auto const traces = traces_dir();
  if (fs::is_directory(traces)) roots += " " + quote(traces);  // the real ones too, when here
  auto const single = d / "single.sqlite";
  ASSERT_EQ(run_cli("scan " + roots + " --db " + quote(single) + " --label night").exit_code, 0);
  std::string shards;
  std::vector<int> jobs_per_shard;
  for (int k = 0; k < 4; ++k) {
    auto const shard = d / ("shard" + std::to_string(k) + ".sqlite");
    auto const r = run_cli("scan " + roots + " --db " + quote(shard) + " --label night --shard " +
                           std::to_string(k) + "/4 --jobs 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    jobs_per_shard.push_back(std::stoi(sql_value(shard, "SELECT count(*) FROM jobs")));
    EXPECT_EQ(sql_value(shard, "SELECT shard FROM runs"), std::to_string(k) + "/4");
    shards += " " + quote(shard);
  }
  for (int n : jobs_per_shard) EXPECT_GT(n, 0);
  auto const merged = d / "merged.sqlite";
  auto const m = run_cli("merge " + quote(merged) + shards);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto const want = all_rows(single);
  auto const got = all_rows(merged);
  EXPECT_GT(want.size(), 100u);
  EXPECT_EQ(got, want);
  // Merging the same shards again adds nothing.
  ASSERT_EQ(run_cli("merge " + quote(merged) + shards).exit_code, 0);
  EXPECT_EQ(all_rows(merged), want);
  // A shard that is not a results database is an error naming it.
  std::ofstream(d / "junk.sqlite") << "not a database at all, just text of some length......";
  auto const bad = run_cli("merge " + quote(d / "m2.sqlite") + " " + quote(d / "junk.sqlite"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("junk.sqlite"), std::string::npos) << bad.err;
  auto const usage = run_cli("scan " + roots + " --db " + quote(d / "x.sqlite") + " --shard 4/4");
  EXPECT_EQ(usage.exit_code, 1);
  EXPECT_NE(usage.err.find("--shard 4/4"), std::string::npos) << usage.err;
}

/// The largest compute kernel (not NCCL) of rank 0 in `db`'s first run.
std::string largest_compute_kernel(fs::path const& db) {
  return sql_value(db,
                   "SELECT name FROM kernels WHERE rank = 0 AND name NOT LIKE 'nccl%' "
                   "ORDER BY total_ns DESC LIMIT 1");
}

TEST(FleetDiff, FindsThePlantedRegressionAndNothingBetweenIdenticalRuns) {
  scratch_dir d("diff");
  int const steps = 6;
  generate_job(d / "a/job", 2, 7, steps);
  auto const db = d / "runs.sqlite";
  ASSERT_EQ(run_cli("scan " + quote(d / "a") + " --db " + quote(db) + " --label a").exit_code, 0);
  auto const kernel = largest_compute_kernel(db);
  ASSERT_FALSE(kernel.empty());
  // After: the kernel 30 % slower everywhere, rank 1 waiting 5 ms more per step; other times
  // shifted so that no file is byte-identical to one already stored.
  generate_job(d / "b/job", 2, 7, steps,
               "--start-ns 1700000100000000000 --slow-kernel " + quote(kernel) +
                   " --slow-permille 1300 --idle-rank 1 --idle-rank-ns 5000000");
  generate_job(d / "c/job", 2, 7, steps, "--start-ns 1700000200000000000");
  for (auto const* run : {"b", "c"})
    ASSERT_EQ(
        run_cli("scan " + quote(d / run) + " --db " + quote(db) + " --label " + run).exit_code, 0);

  auto const check_regression = [&](std::string const& args) {
    auto const r = run_cli("diff " + args + " --fail-above 10 --format json");
    ASSERT_EQ(r.exit_code, 3) << args << "\n" << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    std::vector<std::int64_t> slow_ranks;
    for (auto row : doc["kernels"].get_array()) {
      std::string_view const name = row["name"];
      bool const regression = row["regression"];
      if (name != kernel) {
        EXPECT_FALSE(regression) << name;
        continue;
      }
      EXPECT_EQ(std::string_view(row["status"]), "slower");
      EXPECT_NEAR(double(row["total_change"]), 0.30, 0.005);
      EXPECT_NEAR(double(row["median_change"]), 0.30, 0.005);
      EXPECT_TRUE(regression);
      slow_ranks.push_back(std::int64_t(row["rank"]));
    }
    EXPECT_EQ(slow_ranks, (std::vector<std::int64_t>{0, 1}));
    std::vector<std::int64_t> down;
    for (auto row : doc["devices"].get_array()) {
      EXPECT_LT(double(row["utilization_after"]), double(row["utilization_before"]));
      if (bool(row["regression"])) down.push_back(std::int64_t(row["rank"]));
    }
    EXPECT_EQ(down, std::vector<std::int64_t>{1});
    bool rank1_step = false;
    for (auto row : doc["steps"].get_array())
      rank1_step |= std::int64_t(row["rank"]) == 1 && bool(row["regression"]);
    EXPECT_TRUE(rank1_step);
    EXPECT_GE(doc["regressions"].get_array().size(), 4u);
  };
  check_regression("--db " + quote(db) + " 1 2");
  check_regression(quote(d / "a/job") + " " + quote(d / "b/job"));

  for (auto const& args :
       {"--db " + quote(db) + " 1 3", quote(d / "a/job") + " " + quote(d / "c/job")}) {
    auto const r = run_cli("diff " + args + " --fail-above 10 --threshold 0 --format json");
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.out << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
    for (auto const* table : {"kernels", "devices", "idle_by_cause", "steps", "regressions"})
      EXPECT_EQ(doc[table].get_array().size(), 0u) << args << ": " << table;
    EXPECT_EQ(doc["jobs"].get_array().size(), 1u);
  }
  // Without --fail-above a regression is listed but the exit code stays 0.
  EXPECT_EQ(run_cli("diff --db " + quote(db) + " 1 2").exit_code, 0);
  EXPECT_EQ(run_cli("diff --db " + quote(db) + " 1 9").exit_code, 1);
}

}  // namespace fleet_merge_diff_test

}  // namespace tracesweep::test
