// SPDX-License-Identifier: Apache-2.0
// The collectives job (generate --plant collectives): its rows hold what the truth says, read
// here straight from the table: every instance ends at one time on every rank, the late rank
// starts its all_reduce late_ns after the others, the all_gather starts together, no stream runs
// two kernels at once, and each NCCL kernel carries its args.
#include <tracesweep/generator/collective_job.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace ts = tracesweep;

namespace collective_job_test {

struct kernel_row {
  std::int64_t start, end;
  std::size_t row;
};

TEST(collective_job, ranks_meet_at_each_collective_as_the_truth_says) {
  ts::collective_job_options o;
  o.ranks = 3, o.steps = 4, o.late_rank = 1, o.late_ns = 123'000;
  ts::event_table t;
  auto const truth = ts::generate_collective_job(o, t);
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<kernel_row>> by_stream;
  std::map<std::int32_t, std::vector<kernel_row>> nccl;  // per rank, by start
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != ts::event_kind::kernel) continue;
    by_stream[{t.rank[i], t.stream[i]}].push_back({t.start_ns[i], t.end_ns[i], i});
    if (t.strings().at(t.name[i]).starts_with("ncclDevKernel_"))
      nccl[t.rank[i]].push_back({t.start_ns[i], t.end_ns[i], i});
  }
  for (auto& [stream, rows] : by_stream) {
    std::sort(rows.begin(), rows.end(), [](auto a, auto b) { return a.start < b.start; });
    for (std::size_t k = 1; k < rows.size(); ++k) EXPECT_LE(rows[k - 1].end, rows[k].start);
  }
  ASSERT_EQ(nccl.size(), 3u);
  for (std::size_t k = 0; k < 2 * 4; ++k) {
    bool const all_reduce = k % 2 == 0;
    for (std::int32_t r = 0; r < 3; ++r) {
      EXPECT_EQ(nccl[r][k].end, nccl[0][k].end) << "instance " << k;
      auto const late = all_reduce && r == 1 ? 123'000 : 0;
      EXPECT_EQ(nccl[r][k].start, nccl[0][k].start + late) << "instance " << k << " rank " << r;
      auto const* args = t.collectives.find(nccl[r][k].row);
      ASSERT_NE(args, nullptr);
      EXPECT_EQ(t.strings().at(args->dtype), all_reduce ? "Float" : "BFloat16");
      EXPECT_EQ(args->group_size, 3);
    }
  }
  ASSERT_EQ(truth.ranks.size(), 3u);
  EXPECT_EQ(truth.ranks[0].wait_ns, 4 * 123'000);
  EXPECT_EQ(truth.ranks[1].wait_ns, 0);
  EXPECT_EQ(truth.ranks[1].last_arrivals, 4);
  EXPECT_EQ(truth.rows.size(), 6u);
  ts::event_table other;
  o.late_rank = 3;
  EXPECT_THROW((void)ts::generate_collective_job(o, other), std::invalid_argument);
}

}  // namespace collective_job_test
