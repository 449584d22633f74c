// SPDX-License-Identifier: Apache-2.0
// Collectives matched across ranks: NCCL kernel kinds from names; waits, transfers and last
// arrivals on a hand-built job with a late rank; and on real two-rank traces against a
// brute-force matching the test does itself (for nsys straight from the export with SQL).
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <tracesweep/input_reader.hpp>

#include "support/table_builder.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
using ts::collective_kind;

TEST(collectives, kinds_come_from_nccl_kernel_names) {
  auto kind = [](std::string_view n) { return ts::collective_kind_of(n); };
  EXPECT_EQ(kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), collective_kind::all_reduce);
  EXPECT_EQ(kind("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            collective_kind::all_reduce);
  EXPECT_EQ(kind("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, n"),
            collective_kind::broadcast);
  EXPECT_EQ(kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)"),
            collective_kind::send_recv);
  EXPECT_EQ(kind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, x)"),
            collective_kind::send_recv);
  EXPECT_EQ(kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), collective_kind::reduce_scatter);
  EXPECT_EQ(kind("ncclDevKernel_AllGather_RING_LL"), collective_kind::all_gather);
  EXPECT_EQ(kind("ncclDevKernel_Reduce_Sum_f32_RING_LL"), collective_kind::reduce);
  EXPECT_EQ(kind("ncclDevKernel_Generic_4"), collective_kind::other);
  EXPECT_EQ(kind("ampere_sgemm_128x64_nn"), std::nullopt);
  EXPECT_EQ(kind("nccl:all_reduce"), std::nullopt);  // the annotation, not a kernel
  EXPECT_EQ(kind("void at::foo<ncclKernel_AllReduce>(int)"), std::nullopt);
  EXPECT_EQ(ts::collective_kind_name(collective_kind::all_to_all), "all_to_all");
}

namespace {

constexpr auto kernel = ts::event_kind::kernel;
constexpr char const* all_reduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

ts::rank_collectives const& rank_of(ts::collective_matching const& m, std::int32_t rank) {
  auto const at =
      std::find_if(m.ranks.begin(), m.ranks.end(), [&](auto const& r) { return r.rank == rank; });
  if (at == m.ranks.end()) throw std::runtime_error("no such rank");
  return *at;
}

}  // namespace

TEST(collectives, a_late_rank_makes_the_others_wait) {
  ts::test::table_builder b;
  // Instance 0: rank 1 arrives 40 late; instance 1: rank 0 arrives 15 late; instance 2: a tie
  // (nobody is counted last). A compute kernel in between is no collective.
  b.input("nsys-sqlite");
  b.device(kernel, 100, 200, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 210, 230, 0, 8, 0, -1, "gemm");
  b.device(kernel, 315, 400, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 500, 560, 0, 7, 0, -1, all_reduce);
  b.input("nsys-sqlite");
  b.device(kernel, 140, 205, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 300, 401, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 500, 570, 0, 7, 1, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_EQ(m.participants, 2u);
  EXPECT_EQ(m.instances, 3u);
  EXPECT_EQ(m.unmatched, 0u);
  auto const& r0 = rank_of(m, 0);
  auto const& r1 = rank_of(m, 1);
  EXPECT_EQ(r0.collectives, 3);
  EXPECT_EQ(r0.wait_ns, 40 + 0 + 0);
  EXPECT_EQ(r0.transfer_ns, (200 - 140) + (400 - 315) + (560 - 500));
  EXPECT_EQ(r0.last_arrivals, 1);
  EXPECT_EQ(r1.wait_ns, 0 + 15 + 0);
  EXPECT_EQ(r1.transfer_ns, (205 - 140) + (401 - 315) + (570 - 500));
  EXPECT_EQ(r1.last_arrivals, 1);
}

TEST(collectives, counts_that_disagree_match_what_they_can_and_skew_is_clamped) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.device(kernel, 100, 110, 0, 7, 0, -1, all_reduce);  // ends before rank 1 starts (skew)
  b.device(kernel, 300, 350, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 600, 650, 0, 7, 0, -1, all_reduce);  // rank 1 has no third
  b.input("nsys-sqlite");
  b.device(kernel, 150, 170, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 300, 360, 0, 7, 1, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_EQ(m.instances, 2u);
  EXPECT_EQ(m.unmatched, 1u);
  auto const& r0 = rank_of(m, 0);
  EXPECT_EQ(r0.collectives, 3);
  EXPECT_EQ(r0.matched, 2);
  EXPECT_EQ(r0.wait_ns, 10);  // its whole duration, not 50
  EXPECT_EQ(r0.transfer_ns, 0 + 50);
  EXPECT_EQ(r0.last_arrivals, 0);
  EXPECT_EQ(rank_of(m, 1).last_arrivals, 1);
}

TEST(collectives, one_gpu_has_nothing_to_match) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.device(kernel, 100, 110, 0, 7, 0, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_FALSE(m.across_ranks());
  EXPECT_EQ(m.instances, 0u);
  ASSERT_EQ(m.ranks.size(), 1u);
  EXPECT_EQ(m.ranks[0].collectives, 1);
}

namespace {

/// A brute-force matching: per rank, its NCCL kernels (start, end) by start; the k-th of each
/// rank is one instance.
using kernels_by_rank = std::map<std::int32_t, std::vector<std::pair<std::int64_t, std::int64_t>>>;

struct expected {
  std::int64_t wait = 0, transfer = 0, last = 0, collectives = 0;
};

std::map<std::int32_t, expected> brute_force(kernels_by_rank const& k) {
  std::map<std::int32_t, expected> out;
  std::size_t n = SIZE_MAX;
  for (auto const& [rank, v] : k) n = std::min(n, v.size()), out[rank].collectives = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t last = INT64_MIN;
    for (auto const& [rank, v] : k) last = std::max(last, v[i].first);
    int at_last = 0;
    std::int32_t last_rank = -1;
    for (auto const& [rank, v] : k) {
      auto const [s, e] = v[i];
      auto const wait = std::min(last - s, e - s);
      out[rank].wait += wait;
      out[rank].transfer += e - s - wait;
      if (s == last) ++at_last, last_rank = rank;
    }
    if (at_last == 1) ++out[last_rank].last;
  }
  return out;
}

void expect_matching(ts::collective_matching const& m, kernels_by_rank const& k) {
  auto const want = brute_force(k);
  ASSERT_EQ(m.ranks.size(), want.size());
  ASSERT_GE(want.size(), 2u);
  for (auto const& r : m.ranks) {
    SCOPED_TRACE("rank " + std::to_string(r.rank));
    auto const& w = want.at(r.rank);
    EXPECT_EQ(r.collectives, w.collectives);
    EXPECT_EQ(r.wait_ns, w.wait);
    EXPECT_EQ(r.transfer_ns, w.transfer);
    EXPECT_EQ(r.last_arrivals, w.last);
  }
  EXPECT_GT(m.instances, 0u);
}

ts::collective_matching match_file(std::vector<std::string> const& paths) {
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  ts::trace_model const model(t);
  return ts::match_collectives(model);
}

}  // namespace

TEST(collectives, nsys_two_processes_match_a_brute_force_over_the_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const path = (dir / "nsys/nsys-ai/mfu_2gpu_before.sqlite").string();
  // The export's NCCL kernels per process, by start then rowid; processes are ranks in pid order.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT (k.globalPid >> 24) & 16777215, k.start, k.\"end\" FROM "
                               "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds n ON "
                               "n.id = k.demangledName WHERE n.value LIKE 'nccl%Kernel!_%' "
                               "ESCAPE '!' ORDER BY 1, 2, k.rowid",
                               -1, &s, nullptr),
            SQLITE_OK);
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> by_pid;
  while (sqlite3_step(s) == SQLITE_ROW)
    by_pid[sqlite3_column_int64(s, 0)].emplace_back(sqlite3_column_int64(s, 1),
                                                    sqlite3_column_int64(s, 2));
  sqlite3_finalize(s);
  sqlite3_close(db);
  kernels_by_rank k;
  std::int32_t rank = 0;
  for (auto& [pid, v] : by_pid) k[rank++] = std::move(v);
  expect_matching(match_file({path}), k);
}

TEST(collectives, kineto_two_ranks_match_a_brute_force_over_their_kernels) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const folder = dir / "kineto/hta_trace_filter_2rank";
  std::vector<std::string> paths{(folder / "sampled_rank-0.json.gz").string(),
                                 (folder / "sampled_rank-1.json.gz").string()};
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  kernels_by_rank k;  // the rows the reader produced, picked and ordered here
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == kernel && t.strings().at(t.name[i]).starts_with("ncclKernel_"))
      k[t.rank[i]].emplace_back(t.start_ns[i], t.end_ns[i]);
  for (auto& [rank, v] : k)
    std::stable_sort(v.begin(), v.end(), [](auto a, auto b) { return a.first < b.first; });
  ts::trace_model const model(t);
  expect_matching(ts::match_collectives(model), k);
}
