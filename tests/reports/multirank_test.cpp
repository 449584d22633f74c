// SPDX-License-Identifier: Apache-2.0
// Distributed (per rank and across ranks) and Kineto model summary on a hand-written 3-rank
// Kineto job, against values derived by hand below (read as 3 ranks, and ranks 0 + 2 as an even
// 2-rank job for the even-median rule).
//
// fixtures/kineto_3rank/rank{0,1,2}.json, distributedInfo.rank 0/1/2, times in µs, host pid 1
// (main thread tid 10, autograd thread tid 11), device 0 (stream 7 compute, stream 20 NCCL).
// Rank 0:
//   tid 10 user_annotation: ProfilerStep#1 [0,100), ProfilerStep#2 [100,200);
//     enumerate(DataLoader)#… [0,10), [100,105); Optimizer.step#SGD.step [80,95), [180,190)
//   gpu_user_annotation "ProfilerStep#1" on the GPU row [5,210): a device annotation, not a step
//   cuda_runtime (tid 10) → kernel (corr):
//     c6 [3,4)     → copy_kernel s7 [5,8)      3
//     c1 [20,22)   → gemm        s7 [25,45)   20
//     c2 [40,42)   → nccl…       s20 [40,70)  30
//     c3 [85,86)   → sgd_kernel  s7 [87,90)    3
//     c4 [120,122) → gemm        s7 [125,150) 25
//     c7 [99,101)  → relu        s7 [160,164)  4  (the call straddles the step boundary)
//     c5 [185,186) → sgd_kernel  s7 [187,189)  2
//   cuda_runtime (tid 11) c8 [50,52) → gemm_bwd s7 [52,56) 4 (launched from another thread)
// Rank 1 = rank 0 except ProfilerStep#2 [100,230) and nccl [40,80) (40).
// Rank 2 = rank 0 except ProfilerStep#2 dur 110.001 µs = 110001 ns, c2 runtime [28,29) with
//   nccl [30,50) (20), and gemm c4 [125,160) (35).
//
// Distributed (communication = ∪ nccl kernels, computation = ∪ the other kernels):
//   rank 0: comm 30; comp ∪{[5,8) [25,45) [52,56) [87,90) [125,150) [160,164) [187,189)}
//           = 3+20+4+3+25+4+2 = 61; overlap [40,70)∩comp = [40,45) 5 + [52,56) 4 = 9;
//           steps 100, 100 → mean 100 µs; total = |∪ steps| = 200 µs.
//   rank 1: comm 40; comp 61; overlap [40,45) 5 + [52,56) 4 = 9; steps 100, 130 → mean 115;
//           total 230.
//   rank 2: comm 20; comp: [125,160) touches [160,164) → [125,164) 39, so 3+20+4+3+39+2 = 71;
//           overlap [30,50)∩comp = [30,45) 15 ([52,56) lies after 50); steps 100000 ns and
//           110001 ns → mean 105000.5 ns; total 210001 ns.
//   3 ranks: comm {30,40,20} → 20 / 30 / 40; comp {61,61,71} → 61 / 61 / 71;
//            overlap {9,9,15} → 9 / 9 / 15; mean step {100000, 115000, 105000.5} ns →
//            100000 / 105000.5 / 115000; slowest rank 1.
//   ranks 0 + 2: comm {30,20} → 20 / 25 / 30; comp {61,71} → 61 / 66 / 71; overlap {9,15} →
//            9 / 12 / 15; mean step {100000, 105000.5} → 100000 / 102500.25 / 105000.5 (the mean of
//            the two middle values, from the exact means); slowest rank 2.
//
// Model summary, Kineto rule (GPU = kernels whose launching call, same correlation, STARTS in the
// item's [start, end) on ANY host thread of the rank; streams summed). Launch starts of rank 0:
//   c6 3, c1 20, c2 40, c8 50 (tid 11), c3 85, c7 99, c4 120, c5 185.
//   rank 0: ProfilerStep 2 calls, CPU 200 (max 100, min 100);
//             GPU step 1 [0,100): c6 3 + c1 20 + c2 30 + c8 4 (the autograd thread tid 11 now
//             counts) + c3 3 + c7 4 (starts at 99: inside step 1 though it ends at 101) = 64,
//             step 2 [100,200): c4 25 + c5 2 = 27 → 91 (max 64, min 27)
//           DataLoader 2 calls, CPU 10 + 5 = 15 (max 10, min 5), GPU [0,10): c6 3, [100,105): 0
//             → 3 (max 3, min 0)
//           Optimizer.step 2 calls, CPU 15 + 10 = 25 (max 15, min 10), GPU [80,95): c3 3,
//             [180,190): c5 2 → 5 (max 3, min 2)
//           Others CPU 200 − 15 − 25 = 160, GPU 91 − 3 − 5 = 83
//   rank 1: ProfilerStep CPU 100 + 130 = 230 (max 130, min 100), GPU step 1: 3 + 20 + 40 (nccl
//             dur 40) + 4 + 3 + 4 = 74, step 2 [100,230): 25 + 2 = 27 → 101 (max 74, min 27);
//           DataLoader and Optimizer.step as rank 0;
//           Others CPU 230 − 15 − 25 = 190, GPU 101 − 3 − 5 = 93
//   rank 2: ProfilerStep CPU 210001 ns (max 110001, min 100000), GPU step 1: 3 + 20 + c2 (starts
//             28) 20 + 4 + 3 + 4 = 54, step 2 [100,210.001): c4 35 + c5 2 = 37 → 91
//             (max 54, min 37); DataLoader and Optimizer.step as rank 0;
//           Others CPU 210001 − 15000 − 25000 = 170001 ns, GPU 91 − 3 − 5 = 83 µs.
//   (Under Paddle's per-thread rule c8 and c7 fell in no step: rank 0 would be 83, not 91.)
#include <gtest/gtest.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/distributed.hpp>
#include <tracesweep/reports/paddle/model_summary.hpp>

namespace ts = tracesweep;

namespace multirank_test {

constexpr std::int64_t us = 1000;
std::string const dir = std::string(TABLES_FIXTURES) + "/kineto_3rank";

ts::event_table read(std::vector<std::string> const& paths) {
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  return t;
}

struct metric_want {
  char const* metric;
  double min, median, max;
};

void expect_across(ts::distributed_summary const& d, std::vector<metric_want> const& w) {
  ASSERT_EQ(d.across.size(), w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    SCOPED_TRACE(w[i].metric);
    EXPECT_EQ(d.across[i].metric, w[i].metric);
    EXPECT_DOUBLE_EQ(d.across[i].min, w[i].min);
    EXPECT_DOUBLE_EQ(d.across[i].median, w[i].median);
    EXPECT_DOUBLE_EQ(d.across[i].max, w[i].max);
  }
}

TEST(MultiRankTables, DistributedThreeRanks) {
  auto const t = read({dir});
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    auto be = ts::make_cpu_backend(threads);
    auto const d = ts::compute_distributed(ts::job_session(ts::trace_model(t), *be, {}));
    ASSERT_EQ(d.ranks.size(), 3u);
    struct want {
      std::int32_t rank;
      std::int64_t total, comm, comp, overlap, steps;
      double mean_step;
    };
    want const w[] = {{0, 200 * us, 30 * us, 61 * us, 9 * us, 2, 100000.0},
                      {1, 230 * us, 40 * us, 61 * us, 9 * us, 2, 115000.0},
                      {2, 210001, 20 * us, 71 * us, 15 * us, 2, 105000.5}};
    for (std::size_t r = 0; r < 3; ++r) {
      SCOPED_TRACE(r);
      EXPECT_EQ(d.ranks[r].rank, w[r].rank);
      EXPECT_EQ(d.ranks[r].total_ns, w[r].total);
      EXPECT_EQ(d.ranks[r].communication_ns, w[r].comm);
      EXPECT_EQ(d.ranks[r].computation_ns, w[r].comp);
      EXPECT_EQ(d.ranks[r].overlap_ns, w[r].overlap);
      EXPECT_EQ(d.ranks[r].steps, w[r].steps);
      EXPECT_DOUBLE_EQ(d.ranks[r].mean_step_ns, w[r].mean_step);
    }
    EXPECT_EQ(d.slowest_rank, 1);
    expect_across(d, {{"communication", 20.0 * us, 30.0 * us, 40.0 * us},
                      {"computation", 61.0 * us, 61.0 * us, 71.0 * us},
                      {"overlap", 9.0 * us, 9.0 * us, 15.0 * us},
                      {"mean_step", 100000.0, 105000.5, 115000.0}});
  }
}

TEST(MultiRankTables, DistributedTwoRanksEvenMedian) {
  auto const t = read({dir + "/rank0.json", dir + "/rank2.json"});
  auto be = ts::make_cpu_backend(2);
  auto const d = ts::compute_distributed(ts::job_session(ts::trace_model(t), *be, {}));
  ASSERT_EQ(d.ranks.size(), 2u);
  EXPECT_EQ(d.ranks[0].rank, 0);
  EXPECT_EQ(d.ranks[1].rank, 2);
  EXPECT_EQ(d.slowest_rank, 2);
  expect_across(d, {{"communication", 20.0 * us, 25.0 * us, 30.0 * us},
                    {"computation", 61.0 * us, 66.0 * us, 71.0 * us},
                    {"overlap", 9.0 * us, 12.0 * us, 15.0 * us},
                    {"mean_step", 100000.0, 102500.25, 105000.5}});
}

TEST(MultiRankTables, KinetoModelSummary) {
  auto const t = read({dir});
  auto be = ts::make_cpu_backend(2);
  auto const ms = ts::compute_model_summary(ts::job_session(ts::trace_model(t), *be, {}));
  ASSERT_EQ(ms.size(), 3u);
  struct want {
    char const* name;
    std::int64_t calls, cpu_total, cpu_max, cpu_min, gpu_total, gpu_max, gpu_min;
  };
  struct rank_want {
    std::size_t index;
    std::int32_t rank;
    std::int64_t total;
    want items[3];
    std::int64_t others_cpu, others_gpu;
  };
  rank_want const rw[] = {
      {0,
       0,
       200 * us,
       {{"ProfilerStep", 2, 200 * us, 100 * us, 100 * us, 91 * us, 64 * us, 27 * us},
        {"DataLoader", 2, 15 * us, 10 * us, 5 * us, 3 * us, 3 * us, 0},
        {"Optimizer.step", 2, 25 * us, 15 * us, 10 * us, 5 * us, 3 * us, 2 * us}},
       160 * us,
       83 * us},
      {1,
       1,
       230 * us,
       {{"ProfilerStep", 2, 230 * us, 130 * us, 100 * us, 101 * us, 74 * us, 27 * us},
        {"DataLoader", 2, 15 * us, 10 * us, 5 * us, 3 * us, 3 * us, 0},
        {"Optimizer.step", 2, 25 * us, 15 * us, 10 * us, 5 * us, 3 * us, 2 * us}},
       190 * us,
       93 * us},
      {2,
       2,
       210001,
       {{"ProfilerStep", 2, 210001, 110001, 100000, 91 * us, 54 * us, 37 * us},
        {"DataLoader", 2, 15 * us, 10 * us, 5 * us, 3 * us, 3 * us, 0},
        {"Optimizer.step", 2, 25 * us, 15 * us, 10 * us, 5 * us, 3 * us, 2 * us}},
       170001,
       83 * us}};
  for (auto const& r : rw) {
    SCOPED_TRACE(r.rank);
    auto const& m = ms[r.index];
    EXPECT_EQ(m.rank, r.rank);
    EXPECT_EQ(m.total_ns, r.total);
    ASSERT_EQ(m.items.size(), 4u);
    auto const step_gpu = static_cast<double>(r.items[0].gpu_total);
    for (std::size_t i = 0; i < 3; ++i) {
      auto const& w = r.items[i];
      auto const& it = m.items[i];
      SCOPED_TRACE(w.name);
      EXPECT_EQ(it.name, w.name);
      EXPECT_FALSE(it.others);
      EXPECT_EQ(it.calls, w.calls);
      EXPECT_EQ(it.cpu_total_ns, w.cpu_total);
      EXPECT_EQ(it.cpu_max_ns, w.cpu_max);
      EXPECT_EQ(it.cpu_min_ns, w.cpu_min);
      EXPECT_DOUBLE_EQ(it.cpu_avg_ns, static_cast<double>(w.cpu_total) / 2.0);
      EXPECT_EQ(it.gpu_total_ns, w.gpu_total);
      EXPECT_EQ(it.gpu_max_ns, w.gpu_max);
      EXPECT_EQ(it.gpu_min_ns, w.gpu_min);
      EXPECT_DOUBLE_EQ(it.gpu_avg_ns, static_cast<double>(w.gpu_total) / 2.0);
      EXPECT_DOUBLE_EQ(it.cpu_ratio,
                       static_cast<double>(w.cpu_total) / static_cast<double>(r.total));
      EXPECT_DOUBLE_EQ(it.gpu_ratio, static_cast<double>(w.gpu_total) / step_gpu);
    }
    auto const& o = m.items[3];
    EXPECT_EQ(o.name, "Others");
    EXPECT_TRUE(o.others);
    EXPECT_EQ(o.cpu_total_ns, r.others_cpu);
    EXPECT_EQ(o.gpu_total_ns, r.others_gpu);
    EXPECT_DOUBLE_EQ(o.cpu_ratio, static_cast<double>(r.others_cpu) / static_cast<double>(r.total));
    EXPECT_DOUBLE_EQ(o.gpu_ratio, static_cast<double>(r.others_gpu) / step_gpu);
  }
}

}  // namespace multirank_test
