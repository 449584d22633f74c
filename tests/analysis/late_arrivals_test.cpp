// SPDX-License-Identifier: Apache-2.0
// Ranks the others wait for at collectives, by hand: diagnose's late_arrivals (the wait caused,
// the costliest instance, the host rows meanwhile and what the late rank spent longer in than
// the others), the straggler test on step time less collective wait, and the summary's exposed
// communication split into wait and transfer; that split also against a per-nanosecond oracle
// on random jobs.
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>

#include "support/table_builder.hpp"

namespace late_arrivals_test {

namespace ts = tracesweep;
using ts::event_kind;

namespace {

constexpr char const* all_reduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

/// A host op [s, e) on `rank`'s thread with a launch call at `call` of the kernel [ks, ke) on
/// `stream`; the op may launch nothing (ks = ke = -1).
void op(ts::test::table_builder& b, std::int32_t rank, std::string_view name, std::int64_t s,
        std::int64_t e, std::int64_t call = -1, std::int64_t ks = -1, std::int64_t ke = -1,
        std::int64_t stream = 7, std::string_view kernel = "gemm") {
  static std::int64_t correlation = 0;
  std::int64_t const thread = 10 + rank;
  b.host(event_kind::cpu_op, s, e, thread, rank, -1, name);
  if (call < 0) return;
  ++correlation;
  b.host(event_kind::api_call, call, call + 10, thread, rank, correlation, "cudaLaunchKernel");
  b.device(event_kind::kernel, ks, ke, 0, stream, rank, correlation, kernel);
}

/// Two ranks, two steps 2000 ns apart. Rank 0 computes [30, 130) and arrives at its all_reduce
/// at 200; rank 1 first spends 200 ns in slow_op, computes [230, 330) and arrives at 400. A
/// kernel on rank 0 hides 50 ns of its wait, one on rank 1 50 ns of its transfer. Rank 0's steps
/// last 1200 ns, rank 1's 1000: rank 0's are longer by its wait.
ts::event_table late_rank_job() {
  ts::test::table_builder b;
  for (std::int32_t rank = 0; rank < 2; ++rank) {
    b.input("kineto-json");
    for (std::int64_t step = 0; step < 2; ++step) {
      auto const t = 2000 * step;
      b.host(event_kind::profiler_step, t, t + (rank == 0 ? 1200 : 1000), 10 + rank, rank, -1,
             "ProfilerStep#" + std::to_string(step));
      if (rank == 0) {
        op(b, 0, "aten::mm", t + 10, t + 110, t + 20, t + 30, t + 130);
        op(b, 0, "nccl:all_reduce", t + 150, t + 170, t + 155, t + 200, t + 600, 13, all_reduce);
        b.device(event_kind::kernel, t + 250, t + 300, 0, 8, 0, -1, "overlapped");
      } else {
        op(b, 1, "slow_op", t + 10, t + 210);
        op(b, 1, "aten::mm", t + 210, t + 310, t + 220, t + 230, t + 330);
        op(b, 1, "nccl:all_reduce", t + 340, t + 360, t + 345, t + 400, t + 600, 13, all_reduce);
        b.device(event_kind::kernel, t + 550, t + 650, 0, 8, 1, -1, "overlapped");
      }
    }
  }
  return std::move(b.done());
}

}  // namespace

TEST(LateArrivals, TheLateRankItsCostAndWhatHeldItBack) {
  auto const table = late_rank_job();
  ts::trace_model const model(table);
  auto be = ts::make_cpu_backend(1);
  auto const d = ts::diagnose(model, *be, {});
  ASSERT_EQ(d.late_arrivals.size(), 1u);
  auto const& l = d.late_arrivals[0];
  EXPECT_EQ(l.rank, 1);
  EXPECT_EQ(l.collectives, 2);
  EXPECT_EQ(l.last_arrivals, 2);
  EXPECT_EQ(l.wait_caused_ns, 2 * 200);
  // Both instances cost 200: the first is the costliest.
  EXPECT_EQ(l.where.rank, 1);
  EXPECT_EQ(l.name, all_reduce);
  EXPECT_EQ(l.first_arrival_ns, 200);
  EXPECT_EQ(l.arrival_ns, 400);
  EXPECT_EQ(l.worst_wait_caused_ns, 200);
  EXPECT_EQ(l.launched_by, "nccl:all_reduce");
  // Its thread during [200, 400): aten::mm 100 ns, then nccl:all_reduce 20, then 10 each.
  ASSERT_GE(l.host.size(), 2u);
  EXPECT_EQ(l.host[0].name, "aten::mm");
  EXPECT_EQ(l.host[1].name, "nccl:all_reduce");
  // Since the step's start: slow_op 200 ns against the other's 0; the rest the same.
  ASSERT_EQ(l.behind.size(), 1u);
  EXPECT_EQ(l.behind[0].name, "slow_op");
  EXPECT_EQ(l.behind[0].late_ns, 200);
  EXPECT_EQ(l.behind[0].others_ns, 0);
  EXPECT_EQ(l.behind[0].excess_ns(), 200);
}

TEST(LateArrivals, ARankWhoseStepsAreLongOnlyByItsWaitIsNoStraggler) {
  auto const table = late_rank_job();
  ts::trace_model const model(table);
  auto be = ts::make_cpu_backend(1);
  auto const d = ts::diagnose(model, *be, {});
  ASSERT_EQ(d.ranks.size(), 2u);
  EXPECT_EQ(d.ranks[0].mean_step_ns, 1200);
  EXPECT_EQ(d.ranks[0].mean_wait_ns, 200);
  EXPECT_EQ(d.ranks[1].mean_step_ns, 1000);
  EXPECT_EQ(d.ranks[1].mean_wait_ns, 0);
  // Rank 0's steps are 20 % over rank 1's, but less its wait it works as long.
  EXPECT_TRUE(d.stragglers.empty());

  // Without the collectives (names no NCCL kernel's) nothing is waiting: rank 0 is a straggler.
  auto renamed = late_rank_job();
  auto const other = renamed.strings().intern("gemm_not_a_collective");
  for (std::size_t i = 0; i < renamed.size(); ++i)
    if (renamed.strings().at(renamed.name[i]) == all_reduce) renamed.name[i] = other;
  ts::trace_model const plain(renamed);
  auto const p = ts::diagnose(plain, *be, {});
  ASSERT_EQ(p.stragglers.size(), 1u);
  EXPECT_EQ(p.stragglers[0].rank, 0);
  EXPECT_EQ(p.stragglers[0].mean_wait_ns, 0);
  EXPECT_DOUBLE_EQ(p.stragglers[0].excess, 0.2);
  EXPECT_DOUBLE_EQ(p.stragglers[0].work_excess, 0.2);
}

TEST(ExposedCommunication, WaitAndTransferLessWhatComputationHides) {
  auto const table = late_rank_job();
  ts::trace_model const model(table);
  auto be = ts::make_cpu_backend(1);
  auto const s = ts::compute_summary(model, *be, {});
  ASSERT_EQ(s.devices.size(), 2u);
  // Rank 0: waits [200, 400) of which [250, 300) under a kernel; transfers [400, 600). Rank 1:
  // no wait; transfers [400, 600) of which [550, 600) under a kernel. Two steps each.
  EXPECT_EQ(s.devices[0].exposed_comm_wait_ns, 2 * 150);
  EXPECT_EQ(s.devices[0].exposed_comm_transfer_ns, 2 * 200);
  EXPECT_EQ(s.devices[1].exposed_comm_wait_ns, 0);
  EXPECT_EQ(s.devices[1].exposed_comm_transfer_ns, 2 * 150);
}

TEST(ExposedCommunication, NoneWithoutCollectivesAcrossRanks) {
  ts::test::table_builder b;
  b.input("kineto-json");
  b.device(event_kind::kernel, 0, 100, 0, 13, 0, -1, all_reduce);
  b.device(event_kind::kernel, 50, 80, 0, 7, 0, -1, "gemm");
  ts::trace_model const model(b.done());
  auto be = ts::make_cpu_backend(1);
  auto const s = ts::compute_summary(model, *be, {});
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_FALSE(s.devices[0].exposed_comm_wait_ns.has_value());
  EXPECT_FALSE(s.devices[0].exposed_comm_transfer_ns.has_value());
}

namespace {

/// Random ranks (one GPU each) with NCCL kernels and computation kernels in [0, span).
struct random_job {
  ts::event_table table;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> nccl, compute;  // by rank
};

random_job make_random_job(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  random_job j;
  auto const ranks = static_cast<std::size_t>(pick(2, 4));
  auto const instances = pick(1, 6);
  j.nccl.resize(ranks);
  j.compute.resize(ranks);
  ts::test::table_builder b;
  for (std::size_t r = 0; r < ranks; ++r) {
    b.input("kineto-json");
    auto const rank = static_cast<std::int32_t>(r);
    for (std::int64_t k = 0; k < instances; ++k) {  // one collective per 400 ns slot
      auto const s = 400 * k + pick(0, 150);
      j.nccl[r].emplace_back(s, s + pick(1, 200));
      b.device(event_kind::kernel, s, j.nccl[r].back().second, 0, 13, rank, -1, all_reduce);
    }
    for (auto n = pick(0, 8); n > 0; --n) {
      auto const s = pick(0, 400 * instances);
      j.compute[r].emplace_back(s, s + pick(0, 120));
      b.device(event_kind::kernel, s, j.compute[r].back().second, 0, 7, rank, -1, "gemm");
    }
  }
  j.table = std::move(b.done());
  return j;
}

}  // namespace

TEST(ExposedCommunication, EqualsAPerNanosecondOracleOnRandomJobs) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto const j = make_random_job(seed);
    ts::trace_model const model(j.table);
    auto be = ts::make_cpu_backend(2);
    auto const s = ts::compute_summary(model, *be, {});
    auto const ranks = j.nccl.size();
    ASSERT_EQ(s.devices.size(), ranks);
    std::int64_t const span = 400 * static_cast<std::int64_t>(j.nccl[0].size()) + 400;
    for (std::size_t r = 0; r < ranks; ++r) {
      // Per nanosecond: 1 wait, 2 transfer, and whether computation covers it.
      std::vector<int> part(static_cast<std::size_t>(span), 0);
      std::vector<bool> hidden(static_cast<std::size_t>(span), false);
      for (std::size_t k = 0; k < j.nccl[r].size(); ++k) {
        std::int64_t last = 0;
        for (auto const& other : j.nccl) last = std::max(last, other[k].first);
        auto const [a, e] = j.nccl[r][k];
        auto const split = std::min(last, e);
        for (auto t = a; t < e; ++t) part[t] |= t < split ? 1 : 2;
      }
      for (auto const& [a, e] : j.compute[r])
        for (auto t = a; t < e; ++t) hidden[t] = true;
      std::int64_t wait = 0, transfer = 0;
      for (std::int64_t t = 0; t < span; ++t) {
        if (hidden[t]) continue;
        wait += (part[t] & 1) ? 1 : 0;
        transfer += (part[t] & 2) ? 1 : 0;
      }
      EXPECT_EQ(s.devices[r].exposed_comm_wait_ns, wait) << "rank " << r;
      EXPECT_EQ(s.devices[r].exposed_comm_transfer_ns, transfer) << "rank " << r;
    }
  }
}

}  // namespace late_arrivals_test
