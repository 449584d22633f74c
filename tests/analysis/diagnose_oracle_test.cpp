// SPDX-License-Identifier: Apache-2.0
// diagnose: every number against an independent computation. Random multi-device tables are
// checked per nanosecond (busy shares per device, step and timeline bin, exposed communication,
// idle by cause) and by sorting (long-tail medians), sums (memcpy, sync); scenarios with known
// answers check periodic gaps, bursts, small copies and stragglers.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>

#include "support/summary_compare.hpp"
#include "support/table_builder.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace diagnose_oracle_test {

ts::diagnosis run(ts::event_table const& t, ts::diagnose_options o = {}) {
  ts::trace_model const model(t);
  auto be = ts::make_cpu_backend(2);
  return ts::diagnose(model, *be, o);
}

struct span {
  std::int64_t s, e;
};

/// Per-nanosecond coverage of [lo, hi) by `set`.
std::int64_t covered(std::vector<span> const& set, std::int64_t lo, std::int64_t hi) {
  std::int64_t n = 0;
  for (std::int64_t x = lo; x < hi; ++x)
    n += std::any_of(set.begin(), set.end(), [&](span const& v) { return v.s <= x && x < v.e; });
  return n;
}

TEST(DiagnoseOracle, RandomTablesBusySharesIdleAndCopies) {
  std::mt19937_64 rng(777);
  auto between = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    ts::test::table_builder b;
    b.input("kineto-json");
    std::map<std::int32_t, std::vector<span>> busy, comm, compute;
    std::map<std::string, std::vector<std::int64_t>> durations;
    std::map<std::int32_t, std::int64_t> copy_ns, copy_bytes;
    std::int64_t corr = 0;
    for (std::int32_t dev = 0; dev < 2; ++dev) {
      for (int k = 0; k < 40; ++k) {
        std::int64_t const s = between(0, 2000);
        std::int64_t const e = s + between(0, 80);
        ++corr;
        b.host(event_kind::api_call, std::max<std::int64_t>(0, s - 5), s, 3, 0, corr,
               "cudaLaunchKernel");
        int const what = static_cast<int>(between(0, 5));
        if (what == 5) {
          auto const bytes = between(1, 100);
          auto const r = b.device(event_kind::memcpy, s, e, dev, 1, 0, corr, "copy", bytes);
          b.table.subkind[r] = 1;
          copy_ns[dev] += e - s;
          copy_bytes[dev] += bytes;
        } else {
          std::string const name =
              what == 0 ? std::string("ncclKernel") : std::string(1, char('0' + what));
          b.device(event_kind::kernel, s, e, dev, what, 0, corr, name);
          (what == 0 ? comm : compute)[dev].push_back({s, e});
          durations[name].push_back(e - s);
        }
        busy[dev].push_back({s, e});
      }
    }
    b.host(event_kind::profiler_step, 0, 700, 3, 0, -1, "ProfilerStep#0");
    b.host(event_kind::profiler_step, 700, 1900, 3, 0, -1, "ProfilerStep#1");
    b.host(event_kind::api_call, 100, 400, 3, 0, -1, "cudaDeviceSynchronize");
    b.host(event_kind::api_call, 1500, 1550, 3, 0, -1, "cudaStreamSynchronize");
    ts::diagnose_options o;
    o.min_gap_ns = 15;
    o.top = 0;
    o.timeline_bins = 7;
    o.long_tail_factor = 1.5;
    o.long_tail_min_count = 5;
    auto const d = run(b.done(), o);

    for (auto const& v : d.verdicts) {
      auto const dev = v.where.device;
      std::int64_t const lo = v.window_start_ns, hi = v.window_end_ns;
      if (!v.step) {
        std::int64_t mn = INT64_MAX, mx = INT64_MIN;
        for (auto const& x : busy[dev]) mn = std::min(mn, x.s), mx = std::max(mx, x.e);
        EXPECT_EQ(lo, mn);
        EXPECT_EQ(hi, mx);
      }
      std::int64_t const window = hi - lo;
      std::int64_t const b_ns = covered(busy[dev], lo, hi);
      EXPECT_DOUBLE_EQ(v.busy_share, double(b_ns) / double(window));
      std::int64_t exposed = 0;
      for (std::int64_t x = lo; x < hi; ++x) {
        auto in = [&](std::vector<span> const& set) {
          return std::any_of(set.begin(), set.end(),
                             [&](span const& s) { return s.s <= x && x < s.e; });
        };
        exposed += in(comm[dev]) && !in(compute[dev]);
      }
      EXPECT_DOUBLE_EQ(v.exposed_communication_share, double(exposed) / double(window));
      // Idle: examined gaps by cause plus the short holes make up the window's idle time.
      std::int64_t examined = 0;
      for (auto const ns : v.idle) examined += ns;
      EXPECT_EQ(examined + v.idle_short_ns, window - b_ns);
      // The examined idle time is the part of the device's listed gaps (--top 0: every one)
      // inside the window: the whole gaps for the device's verdict, the overlaps for a step's.
      std::int64_t gaps = 0;
      for (auto const& g : d.gaps)
        if (g.where.device == dev) {
          gaps += std::max<std::int64_t>(0, std::min(g.end_ns, hi) - std::max(g.start_ns, lo));
          EXPECT_EQ(covered(busy[dev], g.start_ns, g.end_ns), 0);
          EXPECT_GE(g.duration(), o.min_gap_ns);
        }
      EXPECT_EQ(gaps, examined);
    }
    // Timeline bins tile each window; their busy shares per nanosecond.
    for (auto const& bin : d.timeline)
      EXPECT_DOUBLE_EQ(bin.busy_share,
                       double(covered(busy[bin.where.device], bin.start_ns, bin.end_ns)) /
                           double(bin.end_ns - bin.start_ns));
    // Long tail: medians by sorting each name's durations (these tables record no launch
    // configuration: the name is the group); communication kernels are no long tail.
    std::multiset<std::pair<std::string, std::int64_t>> expected_tail, tail;
    for (auto& [name, v] : durations) {
      if (v.size() < o.long_tail_min_count || name == "ncclKernel") continue;
      std::sort(v.begin(), v.end());
      double const median = v.size() % 2
                                ? double(v[v.size() / 2])
                                : (double(v[v.size() / 2 - 1]) + double(v[v.size() / 2])) / 2;
      for (auto const x : v)
        if (double(x) > o.long_tail_factor * median) expected_tail.insert({name, x});
    }
    for (auto const& l : d.long_tail) tail.insert({l.name, l.duration_ns});
    EXPECT_EQ(tail, expected_tail);
    // Copies and sync calls: plain sums.
    for (auto const& m : d.memcpy) {
      EXPECT_EQ(m.total_ns, copy_ns[m.where.device]);
      EXPECT_EQ(m.bytes, copy_bytes[m.where.device]);
    }
    ASSERT_EQ(d.sync.size(), 1u);
    EXPECT_EQ(d.sync[0].calls, 2);
    EXPECT_EQ(d.sync[0].total_ns, 350);
    EXPECT_DOUBLE_EQ(d.sync[0].share, 350.0 / 1900.0);
  }
}

// The diagnosis (every gap, the unions) and the summary read the device activity of sessions
// built for different needs: their gaps and device numbers must agree.
TEST(DiagnoseOracle, DevicePartEqualsTheSummaryOnEveryRealTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::size_t compared = 0;
  for (auto const& path : ts::test::trace_files(dir)) {
    ts::event_table table;
    if (!ts::test::read_trace(path, table)) continue;
    ts::trace_model const model(table);
    auto be = ts::make_cpu_backend(2);
    ts::summary_options so;
    so.top = 0;
    auto const s = ts::compute_summary(model, *be, so);
    ts::diagnose_options o;
    o.top = 0;
    auto const d = ts::diagnose(model, *be, o);
    std::set<std::tuple<std::int32_t, std::int32_t, std::int64_t, std::int64_t>> from_summary,
        from_diagnose;
    for (auto const& g : s.gaps) from_summary.emplace(g.rank, g.device, g.start_ns, g.end_ns);
    for (auto const& g : d.gaps)
      from_diagnose.emplace(g.where.rank, g.where.device, g.start_ns, g.end_ns);
    EXPECT_EQ(from_diagnose, from_summary) << path;
    std::size_t k = 0;
    for (auto const& v : d.verdicts) {
      if (v.step) continue;
      ASSERT_LT(k, s.devices.size()) << path;
      auto const& dev = s.devices[k++];
      EXPECT_EQ(v.window_start_ns, dev.window_start_ns) << path;
      EXPECT_EQ(v.window_end_ns, dev.window_end_ns) << path;
      EXPECT_DOUBLE_EQ(v.busy_share, dev.utilization) << path;
      EXPECT_DOUBLE_EQ(v.exposed_communication_share,
                       double(dev.communication_ns - dev.overlap_ns) / double(dev.window_ns))
          << path;
    }
    EXPECT_EQ(k, s.devices.size()) << path;
    ++compared;
  }
  EXPECT_GT(compared, 10u);
}

/// A kernel on device 0 launched from thread 1 by a call at its start − 5, inside `op` when set.
std::size_t kernel(ts::test::table_builder& b, std::int64_t s, std::int64_t e, std::int64_t& corr,
                   std::string_view name = "k", std::int32_t rank = 0, std::int32_t device = 0) {
  ++corr;
  b.host(event_kind::api_call, s - 5, s - 4, 1 + rank, rank, corr, "cudaLaunchKernel");
  return b.device(event_kind::kernel, s, e, device, 7, rank, corr, name);
}

TEST(DiagnoseScenarios, ExposedCommunicationAndTheLargestIdleCauseCompete) {
  // Window [0, 1000): an all-reduce alone for 300 ns, compute, a data-loader gap, compute.
  for (std::int64_t const gap_start : {550, 650}) {
    ts::test::table_builder b;
    b.input("kineto-json");
    std::int64_t corr = 0;
    kernel(b, 0, 300, corr, "ncclKernel");
    kernel(b, 300, gap_start, corr);
    kernel(b, 900, 1000, corr);
    b.host(event_kind::data_loader, gap_start - 10, 890, 1, 0, -1, "enumerate(DataLoader)#x");
    ts::diagnose_options o;
    o.min_gap_ns = 100;
    auto const d = run(b.done(), o);
    ASSERT_FALSE(d.verdicts.empty());
    auto const& v = d.verdicts.front();
    EXPECT_DOUBLE_EQ(v.exposed_communication_share, 0.3);
    // 350 ns of data loading (35 %) beat 30 % exposed communication; 250 ns (25 %) do not.
    EXPECT_EQ(v.what,
              gap_start == 550 ? ts::verdict::data_loading_bound : ts::verdict::communication_bound)
        << gap_start;
  }
}

TEST(DiagnoseScenarios, PeriodicGapsFormAComb) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  // Busy 0-800 of every 1000, plus a one-off hole: periods 1000 (six gaps of 200).
  for (int k = 0; k < 7; ++k) kernel(b, 1000 * k, 1000 * k + 800, corr);
  b.host(event_kind::data_loader, 0, 7000, 1, 0, -1, "enumerate(DataLoader)#x");
  ts::diagnose_options o;
  o.min_gap_ns = 100;
  auto const d = run(b.done(), o);
  ASSERT_EQ(d.periodic_gaps.size(), 1u);
  auto const& p = d.periodic_gaps[0];
  EXPECT_EQ(p.period_ns, 1000);
  EXPECT_EQ(p.count, 6);
  EXPECT_EQ(p.total_ns, 1200);
  EXPECT_EQ(p.cause, ts::idle_cause::data_loading);
  EXPECT_DOUBLE_EQ(p.share, 1200.0 / 6800.0);

  // Irregular holes are no comb.
  ts::test::table_builder c;
  c.input("kineto-json");
  corr = 0;
  for (std::int64_t s : {0, 1000, 1500, 4000, 4300, 9000}) kernel(c, s, s + 100, corr);
  EXPECT_TRUE(run(c.done(), o).periodic_gaps.empty());
}

TEST(DiagnoseScenarios, BurstsBreakOnOpLengthAndGap) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  auto op = [&](std::int64_t s, std::int64_t e, char const* name) {
    b.host(event_kind::cpu_op, s, e, 1, 0, -1, name);
  };
  op(0, 10'000, "clip_grad_norm_");  // 60 tiny kernels: a burst
  op(10'000, 20'000, "other_op");    // 55 more from another op: a second burst
  op(20'000, 40'000, "third_op");    // 30, a long kernel, 30: no burst
  std::int64_t t = 10;
  for (int k = 0; k < 60; ++k, t += 150) kernel(b, t, t + 100, corr);
  t = 10'010;
  for (int k = 0; k < 55; ++k, t += 150) kernel(b, t, t + 100, corr);
  t = 20'010;
  for (int k = 0; k < 61; ++k, t += 150) kernel(b, t, t + (k == 30 ? 20'000 : 100), corr);
  ts::diagnose_options o;
  o.tiny_kernel_ns = 1000;
  o.burst_max_gap_ns = 100;
  auto const d = run(b.done(), o);
  ASSERT_EQ(d.bursts.size(), 2u);
  EXPECT_EQ(d.bursts[0].kernels, 60);
  EXPECT_EQ(d.bursts[0].launched_by, "clip_grad_norm_");
  EXPECT_EQ(d.bursts[0].start_ns, 10);
  EXPECT_EQ(d.bursts[0].end_ns, 10 + 59 * 150 + 100);
  EXPECT_EQ(d.bursts[0].kernel_ns, 6000);
  EXPECT_EQ(d.bursts[1].kernels, 55);
  EXPECT_EQ(d.bursts[1].launched_by, "other_op");
}

TEST(DiagnoseScenarios, SmallCopiesPerStepAndStragglers) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  // Three ranks with two steps each: means 1000, 1000 and 1250.
  for (std::int32_t rank = 0; rank < 3; ++rank) {
    std::int64_t const len = rank == 2 ? 1250 : 1000;
    for (int s = 0; s < 2; ++s) {
      b.host(event_kind::profiler_step, s * len, (s + 1) * len, 1 + rank, rank, -1,
             "ProfilerStep#" + std::to_string(s));
      kernel(b, s * len + 10, (s + 1) * len - 10, corr, "k", rank, rank);
    }
  }
  // Twelve small H2D copies in rank 0's step 1, one large one, and nine D2H (below the count).
  for (int k = 0; k < 13; ++k) {
    ++corr;
    auto const r = b.device(event_kind::memcpy, 1100 + 10 * k, 1105 + 10 * k, 0, 9, 0, corr, "c",
                            k == 12 ? 1 << 20 : 8);
    b.table.subkind[r] = 1;
  }
  for (int k = 0; k < 9; ++k) {
    ++corr;
    auto const r =
        b.device(event_kind::memcpy, 1300 + 10 * k, 1305 + 10 * k, 0, 9, 0, corr, "c", 4);
    b.table.subkind[r] = 2;
  }
  auto const d = run(b.done());
  ASSERT_EQ(d.small_copies.size(), 1u);
  auto const& c = d.small_copies[0];
  EXPECT_EQ(c.where.rank, 0);
  EXPECT_EQ(c.step, 1);
  EXPECT_EQ(c.step_name, "ProfilerStep#1");
  EXPECT_EQ(c.direction, "Host-to-Device");
  EXPECT_EQ(c.copies, 12);
  EXPECT_EQ(c.bytes, 96);
  EXPECT_EQ(c.total_ns, 60);

  ASSERT_EQ(d.ranks.size(), 3u);
  EXPECT_EQ(d.ranks[2].mean_step_ns, 1250);
  ASSERT_EQ(d.stragglers.size(), 1u);
  EXPECT_EQ(d.stragglers[0].rank, 2);
  EXPECT_EQ(d.stragglers[0].median_rank_step_ns, 1000);
  EXPECT_DOUBLE_EQ(d.stragglers[0].excess, 0.25);
}

}  // namespace diagnose_oracle_test
