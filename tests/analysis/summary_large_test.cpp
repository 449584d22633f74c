// SPDX-License-Identifier: Apache-2.0
// A 10M-event generated trace: the summary on one thread equals the summary on all threads, and
// its busy time equals an independent std::sort + sweep over each device's activity.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

namespace ts = tracesweep;

namespace {

TEST(summary_large, ten_million_events_one_vs_all_threads_and_a_plain_sweep) {
  ts::synthetic_options o;
  o.seed = 2024;
  o.ranks = 4;
  o.devices_per_rank = 2;
  o.target_events = 10'000'000;
  ts::event_table t;
  ts::generate_synthetic_trace(o, t);
  ASSERT_GE(t.size(), 10'000'000u);

  ts::summary_options so;
  so.top = 0;
  auto one = ts::make_cpu_backend(1);
  auto all = ts::make_cpu_backend(0);
  auto const a = ts::compute_summary(ts::trace_model(t), *one, so);
  auto const b = ts::compute_summary(ts::trace_model(t), *all, so);
  ASSERT_EQ(a.devices.size(), 8u);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (std::size_t i = 0; i < a.devices.size(); ++i) {
    auto const &x = a.devices[i], &y = b.devices[i];
    EXPECT_EQ(std::tie(x.rank, x.device, x.window_start_ns, x.window_end_ns, x.busy_ns, x.kernel_ns,
                       x.memcpy_ns, x.memset_ns, x.communication_ns, x.computation_ns, x.overlap_ns,
                       x.kernel_count),
              std::tie(y.rank, y.device, y.window_start_ns, y.window_end_ns, y.busy_ns, y.kernel_ns,
                       y.memcpy_ns, y.memset_ns, y.communication_ns, y.computation_ns, y.overlap_ns,
                       y.kernel_count));
    EXPECT_EQ(x.utilization, y.utilization);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (std::size_t i = 0; i < a.kernels.size(); ++i) {
    auto const &x = a.kernels[i], &y = b.kernels[i];
    EXPECT_EQ(std::tie(x.name, x.calls, x.total_ns, x.min_ns, x.max_ns),
              std::tie(y.name, y.calls, y.total_ns, y.min_ns, y.max_ns));
    // Bit-identical: one host function derives every double from exact integers.
    EXPECT_EQ(x.avg_ns, y.avg_ns);
    EXPECT_EQ(x.median_ns, y.median_ns);
    EXPECT_EQ(x.stddev_ns, y.stddev_ns);
    EXPECT_EQ(x.share, y.share);
  }
  ASSERT_EQ(a.gaps.size(), b.gaps.size());
  for (std::size_t i = 0; i < a.gaps.size(); ++i)
    EXPECT_EQ(std::tie(a.gaps[i].start_ns, a.gaps[i].end_ns),
              std::tie(b.gaps[i].start_ns, b.gaps[i].end_ns));

  // Independent: per device, std::sort by start and a running-max sweep.
  std::map<std::pair<std::int32_t, std::int32_t>,
           std::vector<std::pair<std::int64_t, std::int64_t>>>
      activity;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (ts::is_device_activity(t.kind[i]))
      activity[{t.rank[i], t.device[i]}].emplace_back(t.start_ns[i], t.end_ns[i]);
  std::size_t d = 0;
  std::size_t gap_count = 0;
  for (auto& [key, v] : activity) {
    std::sort(v.begin(), v.end());
    std::int64_t busy = 0, cur_s = 0, cur_e = 0;
    std::int64_t window_end = v.front().second;
    for (auto const& iv : v) window_end = std::max(window_end, iv.second);
    bool open = false;
    for (auto const& [s, e] : v) {
      if (s == e) continue;
      // A zero-length event opening the window leaves a hole before the first busy interval.
      if (!open && s - v.front().first >= so.min_gap_ns && s > v.front().first) ++gap_count;
      if (open && s <= cur_e) {
        cur_e = std::max(cur_e, e);
      } else {
        if (open) {
          busy += cur_e - cur_s;
          gap_count += s - cur_e >= so.min_gap_ns;
        }
        cur_s = s, cur_e = e, open = true;
      }
    }
    if (open) {
      busy += cur_e - cur_s;
      gap_count += window_end > cur_e && window_end - cur_e >= so.min_gap_ns;
    }
    ASSERT_LT(d, a.devices.size());
    EXPECT_EQ(a.devices[d].rank, key.first);
    EXPECT_EQ(a.devices[d].busy_ns, busy);
    ++d;
  }
  EXPECT_EQ(a.gaps.size(), gap_count);
}

}  // namespace
