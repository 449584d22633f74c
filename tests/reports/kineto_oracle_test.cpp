// SPDX-License-Identifier: Apache-2.0
// Overview and distributed tables on every Kineto trace in ../shared/traces/kineto against a
// brute-force oracle: sort, merge, add — straightforward exact integer code.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <regex>
#include <set>

#include <tracesweep/backend.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/distributed.hpp>
#include <tracesweep/reports/paddle/model_summary.hpp>
#include <tracesweep/reports/paddle/overview.hpp>
#include <tracesweep/stream_lanes.hpp>

#include "support/counting_backend.hpp"
#include "support/span_oracle.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;

namespace {

using ivl = ts::test::span_ns;
using ts::test::length;
using ts::test::merged;
using ts::test::overlap;

std::string label(ts::event_table const& t, std::size_t i) {
  switch (t.kind[i]) {
    case ts::event_kind::profiler_step:
      return "ProfilerStep";
    case ts::event_kind::data_loader:
      return "DataLoader";
    case ts::event_kind::optimizer:
      return "Optimizer.step";
    default:
      return std::string(t.strings().at(t.category[i]));
  }
}

/// |a ∩ b| of two merged lists, by one walk.
std::int64_t overlap_of_merged(std::vector<ivl> const& a, std::vector<ivl> const& b) {
  std::int64_t s = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    s += std::max<std::int64_t>(
        0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    (a[i].second < b[j].second ? i : j) += 1;
  }
  return s;
}

/// Every Kineto trace file below traces/kineto, sorted.
std::vector<std::filesystem::path> kineto_files(std::filesystem::path const& traces) {
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::recursive_directory_iterator(traces / "kineto"))
    if (e.is_regular_file() && e.path().string().ends_with(".json.gz")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

bool is_comm_kernel(ts::event_table const& t, std::size_t i) {
  static std::regex const re("nccl|rccl", std::regex::icase);
  auto const n = std::string(t.strings().at(t.name[i]));
  return std::regex_search(n, re);
}

/// Per rank: the ProfilerStep intervals, the span and the denominator (|∪ steps| else the span).
struct rank_totals {
  std::map<std::int32_t, std::vector<ivl>> steps;
  std::map<std::int32_t, ivl> span;
  std::map<std::int32_t, std::int64_t> total;
};
rank_totals totals_of(ts::event_table const& t) {
  rank_totals o;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ivl const x{t.start_ns[i], t.end_ns[i]};
    auto& sp = o.span.try_emplace(t.rank[i], x).first->second;
    sp.first = std::min(sp.first, x.first), sp.second = std::max(sp.second, x.second);
    if (t.kind[i] == ts::event_kind::profiler_step) o.steps[t.rank[i]].push_back(x);
  }
  for (auto const& [r, sp] : o.span)
    o.total[r] = o.steps.count(r) ? length(merged(o.steps[r])) : sp.second - sp.first;
  return o;
}

}  // namespace

TEST(KinetoOracle, OverviewAndDistributedOnEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = kineto_files(traces);
  ASSERT_FALSE(files.empty());
  auto be = ts::make_cpu_backend(2);
  for (auto const& f : files) {
    SCOPED_TRACE(f.string());
    ts::event_table t;
    ts::read_input(f.string(), t, {});
    auto const ov = ts::compute_overview(ts::job_session(ts::trace_model(t), *be, {}));
    auto const dist = ts::compute_distributed(ts::job_session(ts::trace_model(t), *be, {}));
    // Oracle, per rank.
    auto const totals = totals_of(t);
    std::map<std::int32_t, std::vector<ivl>> comm, comp;
    std::map<std::tuple<std::int32_t, bool, std::string>, std::vector<ivl>> by_type;
    for (std::size_t i = 0; i < t.size(); ++i) {
      auto const r = t.rank[i];
      ivl const x{t.start_ns[i], t.end_ns[i]};
      by_type[{r, t.device[i] >= 0, label(t, i)}].push_back(x);
      if (t.kind[i] == ts::event_kind::kernel) (is_comm_kernel(t, i) ? comm : comp)[r].push_back(x);
    }
    ASSERT_EQ(ov.size(), totals.span.size());
    ASSERT_EQ(dist.ranks.size(), totals.span.size());
    std::size_t k = 0;
    for (auto const& [r, total] : totals.total) {
      EXPECT_EQ(ov[k].rank, r);
      EXPECT_EQ(ov[k].total_ns, total);
      for (auto const& row : ov[k].rows) {
        if (row.rule != "union") continue;
        auto const& v = by_type.at({r, row.device, row.type});
        EXPECT_EQ(row.calls, static_cast<std::int64_t>(v.size())) << row.type;
        EXPECT_EQ(row.time_ns, length(merged(v))) << row.type;
      }
      auto const cm = merged(comm[r]), cp = merged(comp[r]);
      EXPECT_EQ(dist.ranks[k].communication_ns, length(cm));
      EXPECT_EQ(dist.ranks[k].computation_ns, length(cp));
      EXPECT_EQ(dist.ranks[k].overlap_ns, overlap(cm, cp));
      EXPECT_EQ(dist.ranks[k].total_ns, total);
      ++k;
    }
  }
}

// A generated job of four ranks with 220 k rows: the overview lists its types' rows for the
// unions a batch of groups at a time, and the distributed split a batch of ranks at a time
// (rows_per_union_batch), several batches here; each figure against the oracle.
TEST(KinetoOracle, OverviewAndDistributedTakenInBatches) {
  ts::synthetic_options o;
  o.seed = 31;
  o.ranks = 4;
  o.devices_per_rank = 2;
  o.target_events = 220'000;
  o.host_ops_per_1000_launches = 200;
  ts::event_table t;
  ts::generate_synthetic_trace(o, t);
  ASSERT_GE(t.size(), 220'000u);
  std::size_t kernels = 0;
  for (auto const k : t.kind) kernels += k == ts::event_kind::kernel ? 1 : 0;
  // Ranks of about equal kernels, two a batch: batches of several ranks, and several batches.
  auto const per_batch = ts::rows_per_union_batch(kernels);
  ASSERT_GT(kernels, per_batch);
  ASSERT_LT(kernels, 2 * per_batch);
  auto be = ts::make_cpu_backend(2);
  ts::trace_model const model(t);
  ts::job_session const session(model, *be, {});
  auto const ov = ts::compute_overview(session);
  auto const dist = ts::compute_distributed(session);

  std::map<std::int32_t, std::vector<ivl>> comm, comp;
  std::map<std::tuple<std::int32_t, bool, std::string>, std::vector<ivl>> by_type;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ivl const x{t.start_ns[i], t.end_ns[i]};
    by_type[{t.rank[i], t.device[i] >= 0, label(t, i)}].push_back(x);
    if (t.kind[i] == ts::event_kind::kernel)
      (is_comm_kernel(t, i) ? comm : comp)[t.rank[i]].push_back(x);
  }
  ASSERT_EQ(ov.size(), 4u);
  ASSERT_EQ(dist.ranks.size(), 4u);
  std::size_t unions = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    auto const r = ov[k].rank;
    for (auto const& row : ov[k].rows) {
      if (row.rule != "union" || row.type == "Communication") continue;
      auto const& v = by_type.at({r, row.device, row.type});
      EXPECT_EQ(row.calls, static_cast<std::int64_t>(v.size())) << row.type;
      EXPECT_EQ(row.time_ns, length(merged(v))) << row.type;
      ++unions;
    }
    auto const cm = merged(comm[r]), cp = merged(comp[r]);
    EXPECT_EQ(dist.ranks[k].rank, r);
    EXPECT_EQ(dist.ranks[k].communication_ns, length(cm));
    EXPECT_EQ(dist.ranks[k].computation_ns, length(cp));
    EXPECT_EQ(dist.ranks[k].overlap_ns, overlap_of_merged(cm, cp));
  }
  EXPECT_GE(unions, 4 * 3u);  // host and device types of every rank
}

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto const n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

// hta_trace_filter_2rank read as one job (ranks 0 and 1 from distributedInfo). Per rank, the
// oracle sorts and merges the NCCL kernels and the other kernels, overlaps them pairwise, and
// takes the mean step from the host ProfilerStep intervals; across ranks min / median (mean of
// the two) / max, slowest = largest mean step.
// Read off the JSON by hand: rank 0 ProfilerStep#551 dur 607312 µs, #552 622928 µs → mean
// 615120 µs; rank 1 607904 and 630639 µs → mean 619271.5 µs: rank 1 is the slowest.
TEST(KinetoOracle, DistributedAcrossRanksTwoRankJob) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const dir = traces / "kineto" / "hta_trace_filter_2rank";
  ts::event_table t;
  ts::read_inputs({dir.string()}, t, {}, false);
  std::map<std::int32_t, std::vector<ivl>> comm, comp, steps;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ivl const x{t.start_ns[i], t.end_ns[i]};
    if (t.kind[i] == ts::event_kind::kernel)
      (is_comm_kernel(t, i) ? comm : comp)[t.rank[i]].push_back(x);
    if (t.kind[i] == ts::event_kind::profiler_step && t.device[i] < 0)
      steps[t.rank[i]].push_back(x);
  }
  ASSERT_EQ(steps.size(), 2u);
  ASSERT_EQ(steps.begin()->first, 0);
  ASSERT_EQ(steps.rbegin()->first, 1);
  std::vector<double> cm_v, cp_v, ov_v, mean_v;
  std::int32_t slowest = -1;
  double slowest_mean = 0;
  for (auto const& [r, st] : steps) {
    auto const cm = merged(comm[r]), cp = merged(comp[r]);
    ASSERT_FALSE(cm.empty());
    cm_v.push_back(static_cast<double>(length(cm)));
    cp_v.push_back(static_cast<double>(length(cp)));
    ov_v.push_back(static_cast<double>(overlap(cm, cp)));
    std::int64_t sum = 0;
    for (auto const& x : st) sum += x.second - x.first;
    mean_v.push_back(static_cast<double>(sum) / static_cast<double>(st.size()));
    if (slowest < 0 || mean_v.back() > slowest_mean) slowest = r, slowest_mean = mean_v.back();
  }
  EXPECT_DOUBLE_EQ(mean_v[0], 615120.0 * 1000);
  EXPECT_DOUBLE_EQ(mean_v[1], 619271.5 * 1000);
  EXPECT_EQ(slowest, 1);

  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    auto be = ts::make_cpu_backend(threads);
    auto const d = ts::compute_distributed(ts::job_session(ts::trace_model(t), *be, {}));
    ASSERT_EQ(d.ranks.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(d.ranks[k].rank, static_cast<std::int32_t>(k));
      EXPECT_EQ(d.ranks[k].communication_ns, static_cast<std::int64_t>(cm_v[k]));
      EXPECT_EQ(d.ranks[k].computation_ns, static_cast<std::int64_t>(cp_v[k]));
      EXPECT_EQ(d.ranks[k].overlap_ns, static_cast<std::int64_t>(ov_v[k]));
      EXPECT_EQ(d.ranks[k].steps, 2);
      EXPECT_DOUBLE_EQ(d.ranks[k].mean_step_ns, mean_v[k]);
    }
    EXPECT_EQ(d.slowest_rank, slowest);
    std::pair<char const*, std::vector<double> const*> const want[] = {{"communication", &cm_v},
                                                                       {"computation", &cp_v},
                                                                       {"overlap", &ov_v},
                                                                       {"mean_step", &mean_v}};
    ASSERT_EQ(d.across.size(), std::size(want));
    for (std::size_t m = 0; m < std::size(want); ++m) {
      SCOPED_TRACE(want[m].first);
      auto const& v = *want[m].second;
      EXPECT_EQ(d.across[m].metric, want[m].first);
      EXPECT_DOUBLE_EQ(d.across[m].min, *std::min_element(v.begin(), v.end()));
      EXPECT_DOUBLE_EQ(d.across[m].median, median_of(v));
      EXPECT_DOUBLE_EQ(d.across[m].max, *std::max_element(v.begin(), v.end()));
    }
  }
}

namespace {

// Paddle §1.7 on Kineto names, written plainly: steps = host ProfilerStep#N rows; stages = host
// DataLoader / Optimizer.step rows not starting inside an earlier stage of the same thread; GPU
// time of an item = kernel durations whose launching API call (same file, same correlation, first
// such call) belongs to the item's rank, on any thread, and starts in [item start, item end).
struct oracle_item {
  std::string name;
  std::vector<std::int64_t> cpu, gpu;
};

std::vector<std::pair<std::int32_t, std::vector<oracle_item>>> model_oracle(
    ts::event_table const& t, std::map<std::int32_t, std::int64_t> const& total) {
  auto const n = t.size();
  std::map<std::pair<std::int32_t, std::int64_t>, std::size_t> first_call;
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == ts::event_kind::api_call && t.correlation_of(i) >= 0)
      first_call.try_emplace({t.input_of(i), t.correlation_of(i)}, i);
  std::vector<std::int64_t> launched(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (t.kind[i] != ts::event_kind::kernel) continue;
    auto it = first_call.find({t.input_of(i), t.correlation_of(i)});
    if (t.correlation_of(i) >= 0 && it != first_call.end())
      launched[it->second] += t.end_ns[i] - t.start_ns[i];
  }
  auto gpu_inside = [&](std::size_t e) {
    std::int64_t s = 0;
    for (std::size_t a = 0; a < n; ++a)
      if (t.kind[a] == ts::event_kind::api_call && t.rank[a] == t.rank[e] &&
          t.start_ns[e] <= t.start_ns[a] && t.start_ns[a] < t.end_ns[e])
        s += launched[a];
    return s;
  };
  auto slot = [](ts::event_kind k) {
    switch (k) {
      case ts::event_kind::profiler_step:
        return 0;
      case ts::event_kind::data_loader:
        return 1;
      case ts::event_kind::forward:
        return 2;
      case ts::event_kind::backward:
        return 3;
      case ts::event_kind::optimizer:
        return 4;
      default:
        return -1;
    }
  };
  char const* const names[] = {"ProfilerStep", "DataLoader", "Forward", "Backward",
                               "Optimizer.step"};
  std::vector<std::size_t> stage_rows;
  for (std::size_t i = 0; i < n; ++i)
    if (t.device[i] < 0 && slot(t.kind[i]) > 0) stage_rows.push_back(i);
  auto before = [&](std::size_t f, std::size_t e) {  // (start asc, end desc, row) order
    return std::tuple(t.start_ns[f], -t.end_ns[f], f) < std::tuple(t.start_ns[e], -t.end_ns[e], e);
  };
  std::map<std::int32_t, std::map<int, oracle_item>> per_rank;
  for (auto const& [r, _] : total) per_rank[r];
  for (std::size_t e = 0; e < n; ++e) {
    if (t.device[e] >= 0) continue;
    auto const sl = slot(t.kind[e]);
    if (sl < 0) continue;
    if (sl > 0) {
      bool nested = false;
      for (auto f : stage_rows)
        if (f != e && t.input_of(f) == t.input_of(e) && t.stream[f] == t.stream[e] &&
            before(f, e) && t.start_ns[e] < t.end_ns[f])
          nested = true;
      if (nested) continue;
    }
    auto& item = per_rank[t.rank[e]][sl];
    item.name = names[sl];
    item.cpu.push_back(t.end_ns[e] - t.start_ns[e]);
    item.gpu.push_back(gpu_inside(e));
  }
  std::vector<std::pair<std::int32_t, std::vector<oracle_item>>> out;
  for (auto& [r, items] : per_rank) {
    std::vector<oracle_item> v;
    for (auto& [sl, it] : items) v.push_back(std::move(it));
    out.emplace_back(r, std::move(v));
  }
  return out;
}

std::int64_t sum_of(std::vector<std::int64_t> const& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}

// Runs the oracle on one job and compares every item, the Others row and the ratios.
void check_model_summary(ts::event_table const& t, ts::backend& be, int& traces_with_steps,
                         std::set<std::string>& names_seen) {
  auto totals = totals_of(t);
  auto& total = totals.total;
  std::map<std::int32_t, std::int64_t> all_kernels;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::kernel) all_kernels[t.rank[i]] += t.end_ns[i] - t.start_ns[i];
  if (!totals.steps.empty()) ++traces_with_steps;
  auto const want = model_oracle(t, total);
  auto const got = ts::compute_model_summary(ts::job_session(ts::trace_model(t), be, {}));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    auto const& [r, items] = want[k];
    SCOPED_TRACE(r);
    auto const& g = got[k];
    EXPECT_EQ(g.rank, r);
    EXPECT_EQ(g.total_ns, total[r]);
    ASSERT_EQ(g.items.size(), items.size() + 1);
    bool const has_step = !items.empty() && items.front().name == "ProfilerStep";
    std::int64_t const step_gpu = has_step ? sum_of(items.front().gpu) : all_kernels[r];
    std::int64_t others_cpu = total[r], others_gpu = step_gpu;
    for (std::size_t j = 0; j < items.size(); ++j) {
      auto const& w = items[j];
      auto const& it = g.items[j];
      SCOPED_TRACE(w.name);
      names_seen.insert(w.name);
      EXPECT_EQ(it.name, w.name);
      EXPECT_EQ(it.calls, static_cast<std::int64_t>(w.cpu.size()));
      auto const cpu = sum_of(w.cpu), gpu = sum_of(w.gpu);
      EXPECT_EQ(it.cpu_total_ns, cpu);
      EXPECT_EQ(it.cpu_min_ns, *std::min_element(w.cpu.begin(), w.cpu.end()));
      EXPECT_EQ(it.cpu_max_ns, *std::max_element(w.cpu.begin(), w.cpu.end()));
      EXPECT_DOUBLE_EQ(it.cpu_avg_ns, static_cast<double>(cpu) / static_cast<double>(w.cpu.size()));
      EXPECT_EQ(it.gpu_total_ns, gpu);
      EXPECT_EQ(it.gpu_min_ns, *std::min_element(w.gpu.begin(), w.gpu.end()));
      EXPECT_EQ(it.gpu_max_ns, *std::max_element(w.gpu.begin(), w.gpu.end()));
      EXPECT_DOUBLE_EQ(it.gpu_avg_ns, static_cast<double>(gpu) / static_cast<double>(w.gpu.size()));
      if (total[r] > 0) {
        EXPECT_DOUBLE_EQ(it.cpu_ratio, static_cast<double>(cpu) / static_cast<double>(total[r]));
      }
      if (step_gpu > 0) {
        EXPECT_DOUBLE_EQ(it.gpu_ratio, static_cast<double>(gpu) / static_cast<double>(step_gpu));
      }
      if (!(has_step && j == 0)) others_cpu -= cpu, others_gpu -= gpu;
    }
    auto const& o = g.items.back();
    EXPECT_EQ(o.name, "Others");
    EXPECT_TRUE(o.others);
    EXPECT_EQ(o.cpu_total_ns, others_cpu);
    EXPECT_EQ(o.gpu_total_ns, others_gpu);
  }
}

}  // namespace

// Model summary (ProfilerStep#N, DataLoader, Optimizer.step, Others) on every Kineto trace, each
// file alone, and the 2-rank HTA job read as one.
TEST(KinetoOracle, ModelSummaryOnEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const files = kineto_files(traces);
  ts::test::counting_backend be;
  int with_steps = 0;
  std::set<std::string> names;
  for (auto const& f : files) {
    SCOPED_TRACE(f.string());
    ts::event_table t;
    ts::read_input(f.string(), t, {});
    check_model_summary(t, be, with_steps, names);
  }
  {
    SCOPED_TRACE("hta_trace_filter_2rank as one job");
    ts::event_table t;
    ts::read_inputs({(traces / "kineto" / "hta_trace_filter_2rank").string()}, t, {}, false);
    int unused = 0;
    check_model_summary(t, be, unused, names);
  }
  // The statistics group their keys themselves: the summary sorts nothing before them.
  EXPECT_EQ(be.calls["sort_pairs"], 0);
  EXPECT_GT(be.calls["segmented_stats"], 0);
  // The traces exercise every Kineto row: 17 of the files name ProfilerStep#N (grep of the
  // decompressed JSON); ResNet50 and tb_plugin_small name enumerate(DataLoader)#… and
  // Optimizer.step#….
  EXPECT_GE(with_steps, 17);
  EXPECT_TRUE(names.count("ProfilerStep"));
  EXPECT_TRUE(names.count("DataLoader"));
  EXPECT_TRUE(names.count("Optimizer.step"));
}
