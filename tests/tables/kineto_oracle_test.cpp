// SPDX-License-Identifier: Apache-2.0
// Overview and distributed tables on every Kineto trace in ../shared/traces/kineto against a
// brute-force oracle: sort, merge, add — straightforward exact integer code.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include <tracesweep/backend.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/tables/distributed.hpp>
#include <tracesweep/tables/overview.hpp>

#include "support/trace_paths.hpp"

namespace ts = tracesweep;

namespace {

using ivl = std::pair<std::int64_t, std::int64_t>;

std::vector<ivl> merged(std::vector<ivl> v) {
  std::sort(v.begin(), v.end());
  std::vector<ivl> out;
  for (auto const& x : v) {
    if (x.first >= x.second) continue;
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  return out;
}
std::int64_t length(std::vector<ivl> const& v) {
  std::int64_t s = 0;
  for (auto const& x : v) s += x.second - x.first;
  return s;
}
std::int64_t overlap(std::vector<ivl> const& a, std::vector<ivl> const& b) {
  std::int64_t s = 0;
  for (auto const& x : a)
    for (auto const& y : b)
      s += std::max<std::int64_t>(0, std::min(x.second, y.second) - std::max(x.first, y.first));
  return s;
}

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

}  // namespace

TEST(KinetoOracle, OverviewAndDistributedOnEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::recursive_directory_iterator(traces / "kineto"))
    if (e.is_regular_file() && e.path().string().ends_with(".json.gz")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  auto be = ts::make_cpu_backend(2);
  std::regex const comm_re("nccl|rccl", std::regex::icase);
  for (auto const& f : files) {
    SCOPED_TRACE(f.string());
    ts::event_table t;
    ts::read_input(f.string(), t, {});
    auto const ov = ts::compute_overview(t, *be);
    auto const dist = ts::compute_distributed(t, *be);
    // Oracle, per rank.
    std::map<std::int32_t, std::vector<ivl>> steps, comm, comp;
    std::map<std::int32_t, ivl> span;
    std::map<std::tuple<std::int32_t, bool, std::string>, std::vector<ivl>> by_type;
    for (std::size_t i = 0; i < t.size(); ++i) {
      auto const r = t.rank[i];
      ivl const x{t.start_ns[i], t.end_ns[i]};
      auto& sp = span.try_emplace(r, x).first->second;
      sp.first = std::min(sp.first, x.first), sp.second = std::max(sp.second, x.second);
      if (t.kind[i] == ts::event_kind::profiler_step) steps[r].push_back(x);
      by_type[{r, t.device[i] >= 0, label(t, i)}].push_back(x);
      if (t.kind[i] == ts::event_kind::kernel) {
        auto const n = std::string(t.strings().at(t.name[i]));
        (std::regex_search(n, comm_re) ? comm : comp)[r].push_back(x);
      }
    }
    ASSERT_EQ(ov.size(), span.size());
    ASSERT_EQ(dist.ranks.size(), span.size());
    std::size_t k = 0;
    for (auto const& [r, sp] : span) {
      auto const total = steps.count(r) ? length(merged(steps[r])) : sp.second - sp.first;
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
