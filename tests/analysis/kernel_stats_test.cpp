// SPDX-License-Identifier: Apache-2.0
// compute_kernel_stats on a hand-built two-input job: every grouping, the kept-only selection,
// quantiles, and the order (group, name id). Durations below are end − start in ns.
#include <gtest/gtest.h>

#include <tracesweep/analysis/kernel_stats.hpp>

#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace kernel_stats_test {

// Input 0 (Kineto, rank 1): gemm 10, gemm 30, nccl 5 (launched by no call: kept); a memcpy.
// Input 1 (Paddle, rank 0): gemm 20 (launched), relu 4 (launched), relu 6 (no call: not kept).
struct job {
  ts::test::table_builder b;
  ts::string_id gemm, nccl, relu;
  job() {
    b.input("kineto-json");
    b.device(event_kind::kernel, 0, 10, 0, 7, 1, -1, "gemm");
    b.device(event_kind::kernel, 10, 40, 0, 7, 1, -1, "gemm");
    b.device(event_kind::kernel, 0, 5, 0, 8, 1, -1, "nccl");
    b.device(event_kind::memcpy, 0, 100, 0, 7, 1, -1, "gemm");
    b.input("paddle-json");
    b.host(event_kind::api_call, 0, 1, 1, 0, 1);
    b.host(event_kind::api_call, 2, 3, 1, 0, 2);
    b.device(event_kind::kernel, 5, 25, 0, 7, 0, 1, "gemm");
    b.device(event_kind::kernel, 30, 34, 0, 7, 0, 2, "relu");
    b.device(event_kind::kernel, 40, 46, 0, 7, 0, 99, "relu");
    b.done();
    gemm = b.table.strings().find("gemm");
    nccl = b.table.strings().find("nccl");
    relu = b.table.strings().find("relu");
  }
};

struct row {
  std::uint32_t group;
  ts::string_id name;
  std::uint64_t count;
  std::int64_t sum, min, max;
};

void expect_rows(std::vector<ts::kernel_name_stats> const& got, std::vector<row> const& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].group, want[i].group);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].stats.count, want[i].count);
    EXPECT_EQ(static_cast<std::int64_t>(got[i].stats.sum), want[i].sum);
    EXPECT_EQ(got[i].stats.min, want[i].min);
    EXPECT_EQ(got[i].stats.max, want[i].max);
  }
}

TEST(KernelStats, Groupings) {
  job j;
  ts::trace_model const m(j.b.table);
  auto be = ts::make_cpu_backend(2);
  ASSERT_LT(j.gemm, j.nccl);
  ASSERT_LT(j.nccl, j.relu);
  // Job: gemm {10, 30, 20}, nccl {5}, relu {4, 6}.
  expect_rows(ts::compute_kernel_stats(m, *be),
              {{0, j.gemm, 3, 60, 10, 30}, {0, j.nccl, 1, 5, 5, 5}, {0, j.relu, 2, 10, 4, 6}});
  ts::kernel_selection by_input;
  by_input.grouping = ts::kernel_grouping::input;
  expect_rows(ts::compute_kernel_stats(m, *be, by_input), {{0, j.gemm, 2, 40, 10, 30},
                                                           {0, j.nccl, 1, 5, 5, 5},
                                                           {1, j.gemm, 1, 20, 20, 20},
                                                           {1, j.relu, 2, 10, 4, 6}});
  // Ranks: index 0 = rank 0 (the Paddle input), 1 = rank 1; kept only drops relu 6.
  ts::kernel_selection by_rank;
  by_rank.grouping = ts::kernel_grouping::rank;
  by_rank.kept_only = true;
  expect_rows(ts::compute_kernel_stats(m, *be, by_rank), {{0, j.gemm, 1, 20, 20, 20},
                                                          {0, j.relu, 1, 4, 4, 4},
                                                          {1, j.gemm, 2, 40, 10, 30},
                                                          {1, j.nccl, 1, 5, 5, 5}});
}

TEST(KernelStats, QuantilesAndMedian) {
  job j;
  ts::trace_model const m(j.b.table);
  auto be = ts::make_cpu_backend(1);
  ts::kernel_selection sel;
  sel.quantiles = {0.5, 1.0};
  auto const got = ts::compute_kernel_stats(m, *be, sel);
  ASSERT_EQ(got.size(), 3u);
  auto const& gemm = got[0].stats;  // {10, 20, 30}
  EXPECT_EQ(gemm.median_lo, 20);
  EXPECT_EQ(gemm.median_hi, 20);
  ASSERT_EQ(gemm.quantile_lo.size(), 2u);
  EXPECT_EQ(gemm.quantile_lo[0], 20);
  EXPECT_EQ(gemm.quantile_hi[1], 30);
}

TEST(KernelStats, NoKernels) {
  ts::test::table_builder b;
  b.input("kineto-json").host(event_kind::cpu_op, 0, 1, 1);
  ts::trace_model const m(b.done());
  auto be = ts::make_cpu_backend(1);
  EXPECT_TRUE(ts::compute_kernel_stats(m, *be).empty());
}

}  // namespace kernel_stats_test
