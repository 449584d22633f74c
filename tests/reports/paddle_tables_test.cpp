// SPDX-License-Identifier: Apache-2.0
// Every table on the hand-written Paddle fixture equals the values derived by hand below.
//
// Fixture fixtures/paddle_small.paddle_trace.json (times in µs; the file has whole-µs ts, " [x ms]"
// name suffixes, tids "7(Python)" / "7(C++)" (one OS thread 7) and "8(C++)", a trailing {}):
//   thread 7: ProfileStep#0 [1000,1100), ProfileStep#1 [1100,1200)
//             Dataloader [1000,1010); Forward [1010,1060) ⊃ Dataloader [1015,1020) (nested: not a
//             stage) Backward [1060,1090); Optimization [1090,1098); Forward [1100,1150); Backward
//             [1150,1190) Operator matmul [1012,1040) ⊃ OperatorInner [1013,1039) ⊃ rt c1
//             [1014,1016), rt c2 [1017,1018);
//               matmul ⊃ rt c8 [1035,1036)
//             Operator c_allreduce_sum [1070,1080) ⊃ rt c3 [1071,1072), OperatorInner [1073,1075) ⊃
//             rt c4 [1073,1074) Operator add [1150,1160) ⊃ OperatorInner [1151,1159) ⊃ rt c5
//             [1152,1153.5)
//   thread 8: Communication allreduce_op [1120,1140) ⊃ rt c6 [1121,1122); Operator relu [1141,1148)
//   ⊃ rt c7 [1142,1143) device 0: gemm c1 s13 [1020,1050); relu_kernel c2 s14 [1040,1060); Memcpy
//   c8 s13 [1050,1052);
//             nccl c3 s14 [1075,1085); scale c4 s13 [1076,1078); nccl c6 s14 [1125,1145);
//             relu_kernel c7 s13 [1144,1150); add c5 s13 [1155,1165); orphan c99 s13 [1190,1195)
//             (no runtime: dropped)
// Denominator = |∪ steps| = 200.
#include <gtest/gtest.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/distributed.hpp>
#include <tracesweep/reports/paddle/kernel_table.hpp>
#include <tracesweep/reports/paddle/model_summary.hpp>
#include <tracesweep/reports/paddle/overview.hpp>

#include <simdjson.h>

#include "support/run_cli.hpp"

namespace ts = tracesweep;

namespace paddle_tables_test {

constexpr std::int64_t us = 1000;
std::string const fixture = std::string(TABLES_FIXTURES) + "/paddle_small.paddle_trace.json";

struct loaded {
  ts::event_table table;
  std::unique_ptr<ts::backend> be = ts::make_cpu_backend(2);
  loaded() { ts::read_input(fixture, table, {}); }
};

ts::overview_row const* find(ts::rank_overview const& o, std::string const& type, bool device) {
  for (auto const& r : o.rows)
    if (r.type == type && r.device == device) return &r;
  return nullptr;
}

TEST(PaddleTables, Overview) {
  loaded l;
  auto const ov = ts::compute_overview(ts::job_session(ts::trace_model(l.table), *l.be, {}));
  ASSERT_EQ(ov.size(), 1u);
  auto const& o = ov[0];
  EXPECT_EQ(o.total_ns, 200 * us);
  EXPECT_EQ(o.total_from, "steps");
  struct want {
    char const* type;
    bool device;
    std::int64_t calls, time;
    char const* rule;
  };
  // Host: ProfileStep union 200. Stages = outermost, summed: Dataloader 10 (the nested one is not
  // counted), Forward 50+50, Backward 30+40, Optimization 8. Operator ∪ over threads:
  // 28+10+10+7 = 55. OperatorInner 26+2+8 = 36. CudaRuntime 2+1+1+1+1+1+1+1.5 = 9.5 (8 calls).
  // Communication = ∪(c_allreduce_sum [1070,1080), allreduce_op [1120,1140)) = 30, 2 ranges.
  // Device: Kernel ∪ = [1020,1060) 40 + [1075,1085) 10 + [1125,1150) 25 + [1155,1165) 10 = 85,
  // 7 calls (orphan dropped). Memcpy 2. Communication = ∪(nccl c3, scale c4 (under a comm op),
  // nccl c6) = 10 + 20 = 30, 3 ranges.
  want const rows[] = {
      {"ProfileStep", false, 2, 200 * us, "union"},  {"Forward", false, 2, 100 * us, "sum"},
      {"Backward", false, 2, 70 * us, "sum"},        {"Operator", false, 4, 55 * us, "union"},
      {"OperatorInner", false, 3, 36 * us, "union"}, {"Communication", false, 2, 30 * us, "union"},
      {"Dataloader", false, 1, 10 * us, "sum"},      {"CudaRuntime", false, 8, 9500, "union"},
      {"Optimization", false, 1, 8 * us, "sum"},     {"Kernel", true, 7, 85 * us, "union"},
      {"Memcpy", true, 1, 2 * us, "union"},          {"Communication", true, 3, 30 * us, "union"}};
  ASSERT_EQ(o.rows.size(), std::size(rows));
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    SCOPED_TRACE(rows[i].type);
    EXPECT_EQ(o.rows[i].type,
              rows[i].type);  // host by time desc, then Kernel, Memcpy, Communication
    EXPECT_EQ(o.rows[i].device, rows[i].device);
    EXPECT_EQ(o.rows[i].calls, rows[i].calls);
    EXPECT_EQ(o.rows[i].time_ns, rows[i].time);
    EXPECT_EQ(o.rows[i].rule, rows[i].rule);
    EXPECT_DOUBLE_EQ(o.rows[i].ratio, static_cast<double>(rows[i].time) / (200.0 * us));
  }
  EXPECT_NE(find(o, "Kernel", true), nullptr);
}

TEST(PaddleTables, ModelSummary) {
  loaded l;
  auto const ms = ts::compute_model_summary(ts::job_session(ts::trace_model(l.table), *l.be, {}));
  ASSERT_EQ(ms.size(), 1u);
  auto const& items = ms[0].items;
  ASSERT_EQ(items.size(), 6u);
  // GPU = kernels launched by thread-7 runtimes inside each item (thread 8 is another tree):
  // step 0: gemm 30 + relu 20 + nccl 10 + scale 2 = 62; step 1: add 10. Forward #1: 30+20 = 50,
  // Forward #2: 0. Backward #1: 10+2 = 12, Backward #2: 10.
  struct want {
    char const* name;
    std::int64_t calls, cpu_total, cpu_max, cpu_min, gpu_total, gpu_max, gpu_min;
  };
  want const w[] = {{"ProfileStep", 2, 200, 100, 100, 72, 62, 10},
                    {"Dataloader", 1, 10, 10, 10, 0, 0, 0},
                    {"Forward", 2, 100, 50, 50, 50, 50, 0},
                    {"Backward", 2, 70, 40, 30, 22, 12, 10},
                    {"Optimization", 1, 8, 8, 8, 0, 0, 0}};
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(w[i].name);
    EXPECT_EQ(items[i].name, w[i].name);
    EXPECT_EQ(items[i].calls, w[i].calls);
    EXPECT_EQ(items[i].cpu_total_ns, w[i].cpu_total * us);
    EXPECT_EQ(items[i].cpu_max_ns, w[i].cpu_max * us);
    EXPECT_EQ(items[i].cpu_min_ns, w[i].cpu_min * us);
    EXPECT_DOUBLE_EQ(items[i].cpu_avg_ns,
                     static_cast<double>(w[i].cpu_total * us) / static_cast<double>(w[i].calls));
    EXPECT_EQ(items[i].gpu_total_ns, w[i].gpu_total * us);
    EXPECT_EQ(items[i].gpu_max_ns, w[i].gpu_max * us);
    EXPECT_EQ(items[i].gpu_min_ns, w[i].gpu_min * us);
    EXPECT_DOUBLE_EQ(items[i].cpu_ratio, static_cast<double>(w[i].cpu_total) / 200.0);
    EXPECT_DOUBLE_EQ(items[i].gpu_ratio, static_cast<double>(w[i].gpu_total) / 72.0);
  }
  // Others: CPU 200 − (10+100+70+8) = 12; GPU 72 − (0+50+22+0) = 0.
  EXPECT_EQ(items[5].name, "Others");
  EXPECT_TRUE(items[5].others);
  EXPECT_EQ(items[5].cpu_total_ns, 12 * us);
  EXPECT_EQ(items[5].gpu_total_ns, 0);
  EXPECT_DOUBLE_EQ(items[5].cpu_ratio, 12.0 / 200.0);
}

TEST(PaddleTables, Distributed) {
  loaded l;
  auto const d = ts::compute_distributed(ts::job_session(ts::trace_model(l.table), *l.be, {}));
  ASSERT_EQ(d.ranks.size(), 1u);
  auto const& r = d.ranks[0];
  // Communication = ∪(cpu comm [1070,1080) [1120,1140); gpu comm [1075,1085) [1076,1078)
  // [1125,1145))
  //               = [1070,1085) + [1120,1145) = 40.
  // Computation: kernels whose own runtime's parent is not a comm op: gemm, relu, relu c7, add, and
  // scale (parent c_allreduce_sum::compute is OperatorInner — Paddle counts it twice):
  //   [1020,1060) 40 + [1076,1078) 2 + [1144,1150) 6 + [1155,1165) 10 = 58.
  // Overlap = [1076,1078) 2 + [1144,1145) 1 = 3.
  EXPECT_EQ(r.communication_ns, 40 * us);
  EXPECT_EQ(r.computation_ns, 58 * us);
  EXPECT_EQ(r.overlap_ns, 3 * us);
  EXPECT_EQ(r.total_ns, 200 * us);
  EXPECT_EQ(r.steps, 2);
  EXPECT_DOUBLE_EQ(r.mean_step_ns, 100.0 * us);
  EXPECT_EQ(d.slowest_rank, 0);
  ASSERT_EQ(d.across.size(), 4u);
  EXPECT_EQ(d.across[0].metric, "communication");
  EXPECT_DOUBLE_EQ(d.across[0].median, 40.0 * us);
}

TEST(PaddleTables, KernelSummary) {
  loaded l;
  auto const k = ts::compute_kernel_table(ts::trace_model(l.table), *l.be);
  ASSERT_EQ(k.size(), 1u);
  // gemm 30; nccl 10+20; relu 20+6; add 10; scale 2; Σ = 98 (orphan dropped). Ties by name.
  struct want {
    char const* name;
    std::int64_t calls, total, max, min;
  };
  want const w[] = {{"gemm_kernel", 1, 30, 30, 30},
                    {"ncclKernel_AllReduce", 2, 30, 20, 10},
                    {"relu_kernel", 2, 26, 20, 6},
                    {"add_kernel", 1, 10, 10, 10},
                    {"scale_kernel", 1, 2, 2, 2}};
  ASSERT_EQ(k[0].rows.size(), std::size(w));
  for (std::size_t i = 0; i < std::size(w); ++i) {
    SCOPED_TRACE(w[i].name);
    auto const& r = k[0].rows[i];
    EXPECT_EQ(r.name, w[i].name);
    EXPECT_EQ(r.calls, w[i].calls);
    EXPECT_EQ(r.total_ns, w[i].total * us);
    EXPECT_EQ(r.max_ns, w[i].max * us);
    EXPECT_EQ(r.min_ns, w[i].min * us);
    EXPECT_DOUBLE_EQ(r.ratio, static_cast<double>(w[i].total) / 98.0);
  }
}

TEST(PaddleTables, CliFormats) {
  using ts::test::quote;
  auto const csv = ts::test::run_cli("overview --format csv --table overview " + quote(fixture));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("rank,side,type,calls,time_ns,ratio,rule,total_ns\n"), std::string::npos);
  EXPECT_NE(csv.out.find("0,device,Kernel,7,85000,0.425,union,200000\n"), std::string::npos)
      << csv.out;
  auto const json = ts::test::run_cli("overview --format json " + quote(fixture));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser p;
  auto const doc = p.parse(json.out);
  ASSERT_FALSE(doc.error()) << json.out;
  EXPECT_EQ(int64_t(doc["distributed"]["ranks"].at(0)["computation_ns"]), 58 * us);
  EXPECT_EQ(int64_t(doc["model"].at(0)["items"].at(5)["cpu_total_ns"]), 12 * us);
  auto const text = ts::test::run_cli("overview --table kernels " + quote(fixture));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Total (ms)"), std::string::npos);
  auto const bad = ts::test::run_cli("overview --format csv " + quote(fixture));
  EXPECT_EQ(bad.exit_code, 1);
}

}  // namespace paddle_tables_test
