// SPDX-License-Identifier: Apache-2.0
// The synthetic trace generator: deterministic, exact event counts, every device row linked to
// its API call, communication overlapping compute, data-loader gaps, a skewed kernel mix.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include "support/table_compare.hpp"

namespace ts = tracesweep;

namespace generator_test {

ts::synthetic_options small() {
  ts::synthetic_options o;
  o.seed = 42;
  o.ranks = 2;
  o.devices_per_rank = 2;
  o.steps = 3;
  o.kernels_per_step = 200;
  return o;
}

TEST(generator, same_seed_same_table_other_seed_other_table) {
  ts::event_table a, b, c;
  ts::generate_synthetic_trace(small(), a);
  ts::generate_synthetic_trace(small(), b);
  auto o = small();
  o.seed = 43;
  ts::generate_synthetic_trace(o, c);
  ts::test::expect_same_rows(a, b);
  EXPECT_EQ(a.name, b.name);  // the same string ids too
  EXPECT_EQ(a.size(), c.size());
  EXPECT_NE(a.start_ns, c.start_ns);
  EXPECT_EQ(a.inputs()[0].path, "generated:seed=42");
  EXPECT_EQ(a.inputs()[0].format, "synthetic");
}

TEST(generator, event_count_is_exact_and_target_is_reached) {
  auto const o = small();
  ts::event_table t;
  ts::generate_synthetic_trace(o, t);
  std::int64_t const expected =
      ts::synthetic_events_per_step(o) * o.steps * o.ranks * o.devices_per_rank;
  EXPECT_EQ(static_cast<std::int64_t>(t.size()), expected);
  EXPECT_EQ(t.inputs()[0].events, expected);
  EXPECT_TRUE(t.inputs()[0].skipped.empty());
  EXPECT_EQ(t.inputs()[0].ranks, (std::vector<std::int32_t>{0, 1}));

  auto target = o;
  target.target_events = 100'000;
  ts::event_table big;
  ts::generate_synthetic_trace(target, big);
  std::int64_t const per_step = ts::synthetic_events_per_step(o) * o.ranks * o.devices_per_rank;
  EXPECT_GE(static_cast<std::int64_t>(big.size()), 100'000);
  EXPECT_LT(static_cast<std::int64_t>(big.size()), 100'000 + per_step);
}

TEST(generator, device_rows_link_to_api_calls_that_precede_them) {
  ts::event_table t;
  ts::generate_synthetic_trace(small(), t);
  std::map<std::pair<std::int32_t, std::int64_t>, std::size_t> api;  // (rank, correlation) → row
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == ts::event_kind::api_call) {
      EXPECT_GT(t.correlation_of(i), 0);
      EXPECT_TRUE(api.emplace(std::make_pair(t.rank[i], t.correlation_of(i)), i).second)
          << "correlation ids are unique per rank";
    }
  std::size_t device_rows = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!ts::is_device_activity(t.kind[i])) continue;
    ++device_rows;
    auto const it = api.find({t.rank[i], t.correlation_of(i)});
    ASSERT_NE(it, api.end()) << "device row " << i << " has no API call";
    EXPECT_LE(t.start_ns[it->second], t.start_ns[i]);
    EXPECT_GE(t.device[i], 0);
    if (t.kind[i] == ts::event_kind::memcpy) {
      EXPECT_GT(t.bytes_of(i), 0);
    }
  }
  EXPECT_GT(device_rows, 0u);
  std::set<ts::event_kind> kinds(t.kind.begin(), t.kind.end());
  for (auto k :
       {ts::event_kind::kernel, ts::event_kind::memcpy, ts::event_kind::memset,
        ts::event_kind::api_call, ts::event_kind::profiler_step, ts::event_kind::data_loader,
        ts::event_kind::forward, ts::event_kind::backward, ts::event_kind::optimizer,
        ts::event_kind::user_range, ts::event_kind::synchronization})
    EXPECT_TRUE(kinds.count(k)) << to_string(k);
}

TEST(generator, streams_overlap_and_loader_stalls_leave_gaps) {
  auto o = small();
  o.steps = 6;
  ts::event_table t;
  ts::generate_synthetic_trace(o, t);
  auto be = ts::make_cpu_backend(1);
  ts::summary_options so;
  so.min_gap_ns = 100'000;
  auto const s = ts::compute_summary(ts::trace_model(t), *be, so);
  ASSERT_EQ(s.devices.size(), 4u);
  for (auto const& d : s.devices) {
    EXPECT_GT(d.communication_ns, 0);
    EXPECT_GT(d.overlap_ns, 0) << "NCCL overlaps backward compute";
    EXPECT_LT(d.overlap_ns, d.communication_ns) << "some communication is exposed";
    EXPECT_GT(d.memcpy_ns, 0);
    EXPECT_GT(d.memset_ns, 0);
    EXPECT_GT(d.utilization, 0.2);
    EXPECT_LT(d.utilization, 1.0);
  }
  // One data-loader stall per step and device, at least 150 µs each (minus the queue drain).
  EXPECT_GE(s.gaps.size(), 4u * (o.steps - 1));
  // Zipf: the most frequent kernel is called far more often than the median one.
  std::vector<std::int64_t> calls;
  for (auto const& k : s.kernels) calls.push_back(k.calls);
  std::sort(calls.rbegin(), calls.rend());
  ASSERT_GT(calls.size(), 10u);
  EXPECT_GT(calls.front(), 4 * calls[calls.size() / 2]);
  std::size_t long_names = 0;
  for (auto const& k : s.kernels) long_names += k.name.size() > 150;
  EXPECT_GE(long_names, 5u);
}

TEST(generator, rejects_non_positive_counts) {
  auto o = small();
  o.ranks = 0;
  ts::event_table t;
  EXPECT_THROW(ts::generate_synthetic_trace(o, t), std::invalid_argument);
}

}  // namespace generator_test
