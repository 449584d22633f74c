// SPDX-License-Identifier: Apache-2.0
// Jobs from file names, shards: rank patterns, grouping in a directory tree, K/N parsing and
// the spread of jobs over shards.
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/jobs.hpp>

#include "fleet/fleet_test_support.hpp"

namespace tracesweep::fleet {
namespace job_discovery_test {

TEST(RankPattern, ReplacesTheRankNumber) {
  EXPECT_EQ(rank_pattern("rank-3.json.gz"), "rank-*.json.gz");
  EXPECT_EQ(rank_pattern("sampled_rank-12.json.gz"), "sampled_rank-*.json.gz");
  EXPECT_EQ(rank_pattern("mtia_rank_0.json.gz"), "mtia_rank_*.json.gz");
  EXPECT_EQ(rank_pattern("job.worker0.1623212756351.pt.trace.json"),
            "job.worker*.1623212756351.pt.trace.json");
  EXPECT_EQ(rank_pattern("report_gpu7.sqlite"), "report_gpu*.sqlite");
  EXPECT_EQ(rank_pattern("RANK5.json"), "RANK*.json");
  EXPECT_EQ(rank_pattern("3.json.gz"), "*.json.gz");
  // The last token wins.
  EXPECT_EQ(rank_pattern("node2.rank-1.json"), "node2.rank-*.json");
  // A token followed by a letter is none; the search goes on past it.
  EXPECT_EQ(rank_pattern("gpu3x_rank2.json"), "gpu3x_rank*.json");
  EXPECT_EQ(rank_pattern("Rank_4.Node7b.json"), "Rank_*.Node7b.json");
}

TEST(RankPattern, LeavesNamesWithoutARankAlone) {
  for (auto const* name : {"h100_2gpu_1s.sqlite", "resnet50_num_workers_4.json", "report1.sqlite",
                           "ranking.json", "myrank3x.json", "trace.json.gz"})
    EXPECT_EQ(rank_pattern(name), name) << name;
}

void touch(std::filesystem::path const& p) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << "{}";
}

TEST(FindJobs, GroupsRankFilesOfOneDirectory) {
  test::scratch_dir d("jobs");
  touch(d / "a/rank-0.json");
  touch(d / "a/rank-1.json");
  touch(d / "a/other.json.gz");
  touch(d / "b/c/worker0.sqlite");
  touch(d / "b/c/worker1.sqlite");
  touch(d / "b/c/notes.txt");
  touch(d / "results.sqlite");
  auto const jobs = find_jobs({d.path().string()}, {(d / "results.sqlite").string()});
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "a/other.json.gz");
  EXPECT_EQ(jobs[0].files.size(), 1u);
  EXPECT_EQ(jobs[1].name, "a/rank-*.json");
  ASSERT_EQ(jobs[1].files.size(), 2u);
  EXPECT_EQ(jobs[1].files[0], (d / "a/rank-0.json").string());
  EXPECT_EQ(jobs[2].name, "b/c/worker*.sqlite");
  EXPECT_EQ(jobs[2].files.size(), 2u);
  // Names are relative to the root: the same layout under another root has the same names.
  auto const under_a = find_jobs({(d / "a").string()});
  ASSERT_EQ(under_a.size(), 2u);
  EXPECT_EQ(under_a[1].name, "rank-*.json");
}

TEST(FindJobs, AMissingRootIsAnInputError) {
  test::scratch_dir d("jobs_missing");
  EXPECT_THROW((void)find_jobs({(d / "nope").string()}), input_error);
}

TEST(Shards, ParseKOfN) {
  auto const s = parse_shard("2/4");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 4u);
  for (auto const* bad : {"4/4", "1/0", "-1/4", "a/4", "3", "1/", "/2", "1/2/3", " 1/2"})
    EXPECT_THROW((void)parse_shard(bad), std::invalid_argument) << bad;
}

TEST(Shards, EveryJobInExactlyOneShardAndSpread) {
  std::vector<int> per_shard(4);
  for (int i = 0; i < 400; ++i) {
    auto const path = "/traces/night/job" + std::to_string(i) + "/rank-*.json";
    int owners = 0;
    for (std::uint32_t k = 0; k < 4; ++k)
      if (in_shard(path, {k, 4})) {
        ++owners;
        ++per_shard[k];
      }
    EXPECT_EQ(owners, 1) << path;
  }
  for (int n : per_shard) EXPECT_GT(n, 60);  // 100 expected each
}

}  // namespace job_discovery_test

}  // namespace tracesweep::fleet
