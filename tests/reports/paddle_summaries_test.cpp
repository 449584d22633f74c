// SPDX-License-Identifier: Apache-2.0
// Paddle's Device, Memory Manipulation, UserDefined and Perf Summaries: on a hand-written Paddle
// fixture against values derived by hand below; the device and perf tables on every real trace
// against brute force over the event table; the Perf Summary of a generated job against the
// generator's own step and data-loader rows.
//
// Fixture fixtures/paddle_summaries.paddle_trace.json (µs; thread 7 = "7(Python)" + "7(C++)"):
//   ProfileStep#0 [1000,1100), ProfileStep#1 [1100,1250)   → denominator 250
//   Dataloader [1000,1020), [1100,1105)                      → reader 20, 5
//   PythonUserDefined my_block [1030,1060) ⊃ rt c1 → k1 dev0 s13 [1035,1045) (10),
//                                            rt c7 → k4 dev1 s13 [1054,1058) (4)
//   PythonUserDefined BufferedReader:MemoryCopy [1060,1070) ⊃ rt c3 → memcpy dev0 [1065,1068) (3)
//   UserDefined GpuMemcpySync:GPU->CPU [1080,1090) ⊃ rt c4 → memcpy dev0 [1085,1087) (2)
//   PythonUserDefined my_block [1130,1150) ⊃ rt c2 → memcpy dev0 [1140,1144) (4)
//   UserDefined internal_cpp_range [1160,1170) (C++: not in the UserDefined Summary)
//   Operator matmul [1170,1190) ⊃ rt c5 → k2 dev0 s14 [1175,1195) (20), rt c6 → k3 dev0 s13
//   [1180,1190) (10)
//   ExtraInfo: process 1.5, system 0.25.
// Device: GPU0 |∪ k1, k2, k3| = 10 + 20 = 30 → 0.12; GPU1 4 → 0.016.
// Device time launched inside the steps: step 0: c1 10 + c7 4 + c3 3 + c4 2 = 19; step 1: c2 4 +
// c5 20 + c6 10 = 34; Σ 53.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/device_summary.hpp>
#include <tracesweep/reports/paddle/perf_summary.hpp>
#include <tracesweep/reports/paddle/user_range_summary.hpp>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;

namespace paddle_summaries_test {

constexpr std::int64_t us = 1000;
std::string const fixture = std::string(TABLES_FIXTURES) + "/paddle_summaries.paddle_trace.json";

/// The perf rows of `rank` in an `overview --table perf --format json` document, by item.
std::map<std::string, simdjson::dom::element> perf_items(simdjson::dom::element doc,
                                                         std::int32_t rank) {
  std::map<std::string, simdjson::dom::element> out;
  for (auto row : doc["perf"].get_array())
    if (std::int64_t(row["rank"]) == rank) out[std::string(std::string_view(row["item"]))] = row;
  return out;
}

struct loaded {
  ts::event_table table;
  std::unique_ptr<ts::backend> be = ts::make_cpu_backend(2);
  explicit loaded(std::string const& path = fixture) { ts::read_input(path, table, {}); }
};

TEST(PaddleSummaries, Device) {
  loaded l;
  ts::trace_model const model(l.table, {});
  auto const d = ts::compute_device_summary(ts::job_session(model, *l.be, {}));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].total_ns, 250 * us);
  EXPECT_EQ(d[0].total_from, "steps");
  EXPECT_EQ(d[0].process_cpu, 1.5);
  EXPECT_EQ(d[0].system_cpu, 0.25);
  ASSERT_EQ(d[0].gpus.size(), 2u);
  EXPECT_EQ(d[0].gpus[0].device, 0);
  EXPECT_EQ(d[0].gpus[0].kernel_ns, 30 * us);
  EXPECT_DOUBLE_EQ(d[0].gpus[0].utilization, 0.12);
  EXPECT_EQ(d[0].gpus[1].device, 1);
  EXPECT_DOUBLE_EQ(d[0].gpus[1].utilization, 0.016);
}

TEST(PaddleSummaries, MemoryManipulation) {
  loaded l;
  ts::trace_model const model(l.table, {});
  auto const m = ts::compute_user_range_summary(ts::job_session(model, *l.be, {}),
                                                ts::user_range_table::memory_manipulation);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].step_gpu_ns, 53 * us);
  ASSERT_EQ(m[0].items.size(), 2u);
  auto const& a = m[0].items[0];
  EXPECT_EQ(a.name, "BufferedReader:MemoryCopy");
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.cpu_total_ns, 10 * us);
  EXPECT_DOUBLE_EQ(a.cpu_ratio, 0.04);
  EXPECT_EQ(a.gpu_total_ns, 3 * us);
  EXPECT_DOUBLE_EQ(a.gpu_ratio, 3.0 / 53);
  auto const& b = m[0].items[1];
  EXPECT_EQ(b.name, "GpuMemcpySync:GPU->CPU");
  EXPECT_EQ(b.gpu_total_ns, 2 * us);
  EXPECT_TRUE(ts::is_memory_manipulation("cudaMemSet"));
  EXPECT_FALSE(ts::is_memory_manipulation("memory"));
}

TEST(PaddleSummaries, UserDefined) {
  loaded l;
  ts::trace_model const model(l.table, {});
  auto const u = ts::compute_user_range_summary(ts::job_session(model, *l.be, {}),
                                                ts::user_range_table::user_defined);
  ASSERT_EQ(u.size(), 1u);
  ASSERT_EQ(u[0].items.size(), 1u);  // internal_cpp_range is C++ UserDefined: not listed
  auto const& m = u[0].items[0];
  EXPECT_EQ(m.name, "my_block");
  EXPECT_EQ(m.calls, 2);
  EXPECT_EQ(m.cpu_total_ns, 50 * us);
  EXPECT_DOUBLE_EQ(m.cpu_avg_ns, 25.0 * us);
  EXPECT_EQ(m.cpu_max_ns, 30 * us);
  EXPECT_EQ(m.cpu_min_ns, 20 * us);
  EXPECT_DOUBLE_EQ(m.cpu_ratio, 0.2);
  EXPECT_EQ(m.gpu_total_ns, 18 * us);
  EXPECT_EQ(m.gpu_max_ns, 14 * us);
  EXPECT_EQ(m.gpu_min_ns, 4 * us);
  EXPECT_DOUBLE_EQ(m.gpu_ratio, 18.0 / 53);
}

TEST(PaddleSummaries, Perf) {
  loaded l;
  ts::trace_model const model(l.table, {});
  auto const p = ts::compute_perf_summary(ts::job_session(model, *l.be, {}));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].steps, 2);
  EXPECT_DOUBLE_EQ(p[0].batch_cost.avg_ns, 125.0 * us);
  EXPECT_EQ(p[0].batch_cost.max_ns, 150 * us);
  EXPECT_EQ(p[0].batch_cost.min_ns, 100 * us);
  EXPECT_TRUE(p[0].has_reader);
  EXPECT_DOUBLE_EQ(p[0].reader_cost.avg_ns, 12.5 * us);
  EXPECT_EQ(p[0].reader_cost.max_ns, 20 * us);
  EXPECT_EQ(p[0].reader_cost.min_ns, 5 * us);
  EXPECT_DOUBLE_EQ(p[0].ips_avg, 8000.0);
  EXPECT_DOUBLE_EQ(p[0].ips_max, 10000.0);
  EXPECT_DOUBLE_EQ(p[0].ips_min, 1e9 / 150000.0);
  EXPECT_DOUBLE_EQ(p[0].reader_ratio, 0.1);
}

TEST(PaddleSummaries, CliTablesInEveryFormat) {
  using ts::test::quote;
  for (auto const* table : {"device", "memcpy", "userdefined", "perf"}) {
    for (auto const* format : {"text", "csv", "json", "html"}) {
      auto const r = ts::test::run_cli(std::string("overview --table ") + table + " --format " +
                                       format + " " + quote(fixture));
      EXPECT_EQ(r.exit_code, 0) << table << " " << format << ": " << r.err;
      EXPECT_FALSE(r.out.empty()) << table << " " << format;
    }
  }
  auto const r = ts::test::run_cli("overview --table perf --format json " + quote(fixture));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  auto const perf = perf_items(doc, 0);
  ASSERT_EQ(perf.size(), 3u);
  EXPECT_EQ(std::int64_t(perf.at("batch_cost")["steps"]), 2);
  EXPECT_EQ(double(perf.at("batch_cost")["avg"]), 125000.0);
  EXPECT_EQ(double(perf.at("reader_cost")["max"]), 20000.0);
  EXPECT_EQ(std::string_view(perf.at("reader_cost")["unit"]), "ns");
  EXPECT_EQ(double(perf.at("ips")["max"]), 10000.0);
  EXPECT_EQ(double(perf.at("ips")["reader_ratio"]), 0.1);
  // --compat tb has none of these tables.
  EXPECT_EQ(ts::test::run_cli("overview --compat tb --table perf " + quote(fixture)).exit_code, 1);
}

/// Brute force over the event table: per (rank, device), the covered length of its kept kernels
/// by a sweep over sorted intervals; per rank, steps and data loading inside each.
TEST(PaddleSummaries, DeviceAndPerfOnEveryRealTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& path : ts::expand_inputs({traces.string()})) {
    SCOPED_TRACE(path);
    loaded l(path);
    ts::trace_model const model(l.table, {});
    auto const& t = l.table;
    std::map<std::pair<std::int32_t, std::int32_t>,
             std::vector<std::pair<std::int64_t, std::int64_t>>>
        kernels;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.kind[i] == ts::event_kind::kernel && model.kept(i))
        kernels[{t.rank[i], t.device[i]}].push_back({t.start_ns[i], t.end_ns[i]});
    std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> covered;
    for (auto& [key, v] : kernels) {
      std::sort(v.begin(), v.end());
      std::int64_t total = 0, cur_s = v[0].first, cur_e = v[0].second;
      for (auto const& [s, e] : v) {
        if (s > cur_e) total += cur_e - cur_s, cur_s = s, cur_e = e;
        cur_e = std::max(cur_e, e);
      }
      covered[key] = total + (cur_e - cur_s);
    }
    for (auto const& r : ts::compute_device_summary(ts::job_session(model, *l.be, {})))
      for (auto const& g : r.gpus) EXPECT_EQ(g.kernel_ns, (covered[{r.rank, g.device}]));

    for (auto const& p : ts::compute_perf_summary(ts::job_session(model, *l.be, {}))) {
      std::vector<std::pair<std::int64_t, std::int64_t>> steps;
      for (std::size_t i = 0; i < t.size(); ++i)
        if (t.kind[i] == ts::event_kind::profiler_step && t.device[i] < 0 && t.rank[i] == p.rank)
          steps.push_back({t.start_ns[i], t.end_ns[i]});
      ASSERT_EQ(p.steps, static_cast<std::int64_t>(steps.size()));
      if (steps.empty()) continue;
      std::int64_t longest = 0, shortest = INT64_MAX, total = 0;
      for (auto const& [s, e] : steps)
        longest = std::max(longest, e - s), shortest = std::min(shortest, e - s), total += e - s;
      EXPECT_EQ(p.batch_cost.max_ns, longest);
      EXPECT_EQ(p.batch_cost.min_ns, shortest);
      EXPECT_DOUBLE_EQ(p.ips_avg, 1e9 * double(steps.size()) / double(total));
    }
  }
}

/// A generated Kineto job: each step's batch cost is its ProfilerStep row and its reader cost
/// the data-loader row inside it, as the generator planted them.
TEST(PaddleSummaries, PerfOfAGeneratedJobEqualsItsPlantedTimes) {
  ts::synthetic_options o;
  o.ranks = 2;
  o.steps = 5;
  o.kernels_per_step = 40;
  o.seed = 11;
  ts::event_table planted;
  (void)ts::generate_synthetic_trace(o, planted);
  std::map<std::int32_t, std::vector<std::int64_t>> batch, reader;
  for (std::size_t i = 0; i < planted.size(); ++i) {
    if (planted.device[i] >= 0) continue;
    if (planted.kind[i] == ts::event_kind::profiler_step)
      batch[planted.rank[i]].push_back(planted.end_ns[i] - planted.start_ns[i]);
    if (planted.kind[i] == ts::event_kind::data_loader)
      reader[planted.rank[i]].push_back(planted.end_ns[i] - planted.start_ns[i]);
  }
  auto const dir = std::filesystem::temp_directory_path() /
                   ("ts_perf_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  (void)ts::write_kineto_json(planted, dir.string() + "/", false);
  auto const r = ts::test::run_cli("overview --table perf --format json " + ts::test::quote(dir));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  std::size_t ranks = 0;
  for (std::int32_t rank : {0, 1}) {
    auto const items = perf_items(doc, rank);
    ASSERT_EQ(items.size(), 3u) << rank;
    auto const batch_cost = items.at("batch_cost"), reader_cost = items.at("reader_cost");
    auto const ips = items.at("ips");
    auto const& row = batch_cost;
    auto const& b = batch[rank];
    auto const& d = reader[rank];
    ASSERT_EQ(std::int64_t(row["steps"]), static_cast<std::int64_t>(b.size()));
    ASSERT_EQ(d.size(), b.size());
    std::int64_t bt = 0, dt = 0;
    for (auto x : b) bt += x;
    for (auto x : d) dt += x;
    EXPECT_EQ(double(batch_cost["max"]), double(*std::max_element(b.begin(), b.end())));
    EXPECT_EQ(double(batch_cost["min"]), double(*std::min_element(b.begin(), b.end())));
    EXPECT_DOUBLE_EQ(double(batch_cost["avg"]), double(bt) / double(b.size()));
    EXPECT_EQ(double(reader_cost["max"]), double(*std::max_element(d.begin(), d.end())));
    EXPECT_EQ(double(reader_cost["min"]), double(*std::min_element(d.begin(), d.end())));
    EXPECT_DOUBLE_EQ(double(row["reader_ratio"]), double(dt) / double(bt));
    EXPECT_DOUBLE_EQ(double(ips["avg"]), 1e9 * double(b.size()) / double(bt));
    ++ranks;
  }
  EXPECT_EQ(ranks, 2u);
}

}  // namespace paddle_summaries_test
