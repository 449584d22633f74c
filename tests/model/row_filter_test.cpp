// SPDX-License-Identifier: Apache-2.0
// Row filters on hand-built tables: the overlap rule at the window's edges, each filter alone
// and combined, memory events and launch metrics following their rows, ranks recomputed, the
// errors of filters that match nothing, and the parsers' accepted and refused texts.
#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/model/name_regex.hpp>
#include <tracesweep/model/row_filter.hpp>

#include "support/table_builder.hpp"

#include <cmath>

namespace tracesweep {
namespace row_filter_test {

using test::table_builder;

/// Names of the rows left, in order.
std::vector<std::string> names(event_table const& t) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) out.emplace_back(t.strings().at(t.name[i]));
  return out;
}

/// Rank 0: kernels touching the window [100, 200) at each edge; rank 1: one kernel inside.
event_table edges() {
  table_builder b;
  b.input("kineto-json");
  b.device(event_kind::kernel, 50, 99, 0, 7, 0, -1, "before");      // ends before S
  b.device(event_kind::kernel, 50, 100, 0, 7, 0, -1, "ends_at_S");  // end ≥ S: kept
  b.device(event_kind::kernel, 150, 150, 0, 7, 0, -1, "instant");
  b.device(event_kind::kernel, 199, 300, 0, 7, 0, -1, "starts_before_E");
  b.device(event_kind::kernel, 200, 300, 0, 7, 0, -1, "starts_at_E");  // start < E fails
  b.device(event_kind::kernel, 10, 400, 0, 7, 0, -1, "spans");
  b.input("kineto-json");
  b.device(event_kind::kernel, 120, 130, 0, 7, 1, -1, "rank1");
  return std::move(b.done());
}

TEST(RowFilter, TimeRangeKeepsRowsOverlappingTheWindowUnclipped) {
  auto t = edges();
  row_filter f;
  f.time_range = parse_time_range("100:200", "--time-range");
  apply_row_filter(t, f);
  EXPECT_EQ(names(t), (std::vector<std::string>{"ends_at_S", "instant", "starts_before_E", "spans",
                                                "rank1"}));
  EXPECT_EQ(t.start_ns[0], 50);  // not clipped
  EXPECT_EQ(t.end_ns[3], 400);
}

TEST(RowFilter, RelativeBoundsCountFromTheEarliestRow) {
  auto t = edges();  // the earliest row starts at 10
  row_filter f;
  f.time_range = parse_time_range("+90:+190", "--time-range");  // [100, 200)
  apply_row_filter(t, f);
  EXPECT_EQ(t.size(), 5u);
  auto whole = edges();
  row_filter all;
  all.time_range = parse_time_range("+0:", "--time-range");
  apply_row_filter(whole, all);
  EXPECT_EQ(whole.size(), edges().size());
}

TEST(RowFilter, EmptyWindowKeepsNothing) {
  auto t = edges();
  row_filter f;
  f.time_range = parse_time_range("1000:2000", "--time-range");
  apply_row_filter(t, f);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_TRUE(t.inputs()[0].ranks.empty());
  EXPECT_EQ(t.inputs().size(), 2u);  // the inputs stay
}

TEST(RowFilter, RanksAndRecomputedInputRanks) {
  auto t = edges();
  row_filter f;
  f.ranks = parse_rank_list("1", "--ranks");
  apply_row_filter(t, f);
  EXPECT_EQ(names(t), (std::vector<std::string>{"rank1"}));
  EXPECT_TRUE(t.inputs()[0].ranks.empty());
  EXPECT_EQ(t.inputs()[1].ranks, (std::vector<std::int32_t>{1}));
  auto u = edges();
  row_filter none;
  none.ranks = {5, 6};
  EXPECT_THROW(apply_row_filter(u, none), input_error);
}

TEST(RowFilter, NameFiltersKernelsAndOperatorsOnly) {
  table_builder b;
  b.input("kineto-json");
  b.host(event_kind::cpu_op, 0, 10, 1, 0, -1, "aten::mm");
  b.host(event_kind::cpu_op, 0, 10, 1, 0, -1, "aten::add");
  b.host(event_kind::api_call, 1, 2, 1, 0, 5, "cudaLaunchKernel");
  b.host(event_kind::user_range, 0, 10, 1, 0, -1, "my_range");
  b.device(event_kind::kernel, 3, 4, 0, 7, 0, 5, "gemm_kernel");
  b.device(event_kind::kernel, 5, 6, 0, 7, 0, -1, "add_kernel");
  b.device(event_kind::memcpy, 7, 8, 0, 7, 0, -1, "Memcpy HtoD");
  auto t = std::move(b.done());
  row_filter f;
  f.name_pattern = "mm|gemm";
  apply_row_filter(t, f);
  EXPECT_EQ(names(t), (std::vector<std::string>{"aten::mm", "cudaLaunchKernel", "my_range",
                                                "gemm_kernel", "Memcpy HtoD"}));
}

/// One rank with a "dom:step" range twice and a default-domain "step" around both; rank 1 has
/// no range.
event_table nvtx_table() {
  table_builder b;
  b.input("nsys-sqlite");
  b.host(event_kind::user_range, 100, 200, 1, 0, -1, "dom:step");
  b.host(event_kind::user_range, 300, 400, 1, 0, -1, "dom:step");
  b.host(event_kind::user_range, 0, 1000, 1, 0, -1, "step");  // the default domain: other name
  b.device(event_kind::kernel, 150, 160, 0, 7, 0, -1, "in_first");
  b.device(event_kind::kernel, 250, 260, 0, 7, 0, -1, "between");
  b.device(event_kind::kernel, 350, 360, 0, 7, 0, -1, "in_second");
  b.device(event_kind::kernel, 150, 160, 0, 7, 1, -1, "rank1_same_time");
  return std::move(b.done());
}

TEST(RowFilter, NvtxWindowsPerRankAndInstance) {
  auto run = [&](std::string_view spec) {
    auto t = nvtx_table();
    row_filter f;
    f.nvtx = parse_nvtx_filter(spec, "--filter-nvtx");
    apply_row_filter(t, f);
    std::vector<std::string> kernels;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.kind[i] == event_kind::kernel) kernels.emplace_back(t.strings().at(t.name[i]));
    return kernels;
  };
  EXPECT_EQ(run("step@dom"), (std::vector<std::string>{"in_first", "in_second"}));
  EXPECT_EQ(run("step@dom/1"), (std::vector<std::string>{"in_second"}));
  EXPECT_EQ(run("step"), (std::vector<std::string>{"in_first", "between", "in_second"}));
  auto t = nvtx_table();
  row_filter missing;
  missing.nvtx = parse_nvtx_filter("nope", "--filter-nvtx");
  EXPECT_THROW(apply_row_filter(t, missing), input_error);
  auto u = nvtx_table();
  row_filter no_instance;
  no_instance.nvtx = parse_nvtx_filter("step@dom/2", "--filter-nvtx");
  EXPECT_THROW(apply_row_filter(u, no_instance), input_error);
}

/// Four steps of 90 ns every 100 ns and one kernel in each.
event_table steps_table() {
  table_builder b;
  b.input("kineto-json");
  for (int s = 0; s < 4; ++s)
    b.host(event_kind::profiler_step, 100 * s, 100 * s + 90, 1, 0, -1,
           std::string("ProfilerStep#").append(std::to_string(s)));
  for (int s = 0; s < 4; ++s)
    b.device(event_kind::kernel, 100 * s + 50, 100 * s + 60, 0, 7, 0, -1,
             std::string("k").append(std::to_string(s)));
  return std::move(b.done());
}

TEST(RowFilter, StepsWindowFromFirstToLastStep) {
  auto t = steps_table();
  row_filter f;
  f.steps = parse_step_range("1:2", "--steps");  // [100, 290)
  apply_row_filter(t, f);
  EXPECT_EQ(names(t), (std::vector<std::string>{"ProfilerStep#1", "ProfilerStep#2", "k1", "k2"}));
  auto u = steps_table();
  row_filter beyond;
  beyond.steps = parse_step_range("9", "--steps");
  EXPECT_THROW(apply_row_filter(u, beyond), input_error);
}

TEST(RowFilter, MemoryEventsAndLaunchMetricsFollow) {
  table_builder b;
  b.input("kineto-json");
  b.device(event_kind::kernel, 0, 10, 0, 7, 0, -1, "early");
  b.table.add_launch_metrics(1.0, 10.0, b.table.size() - 1);
  b.device(event_kind::kernel, 100, 110, 0, 7, 0, -1, "late");
  b.table.add_launch_metrics(2.0, 20.0, b.table.size() - 1);
  for (std::int64_t at : {5, 105, 150})
    b.table.append_memory({.time_ns = at, .rank = 0, .device = 0, .bytes = at});
  auto t = std::move(b.done());
  row_filter f;
  f.time_range = parse_time_range("100:200", "--time-range");
  apply_row_filter(t, f);
  ASSERT_EQ(names(t), (std::vector<std::string>{"late"}));
  ASSERT_EQ(t.launch_metrics.size(), 1u);
  EXPECT_EQ(t.launch_metrics.row[0], 0u);
  EXPECT_EQ(t.launch_metrics.blocks_per_sm[0], 2.0);
  EXPECT_EQ(t.memory.bytes, (std::vector<std::int64_t>{105, 150}));
  EXPECT_EQ(t.memory.pool.size(), 2u);
}

TEST(RowFilterSpec, Parses) {
  auto r = parse_time_range("+5ms:2s", "--time-range");
  ASSERT_TRUE(r.start && r.end);
  EXPECT_TRUE(r.start->relative);
  EXPECT_EQ(r.start->ns, 5'000'000);
  EXPECT_TRUE(r.end->relative);  // after a relative start, the end counts from the trace start
  EXPECT_EQ(r.end->ns, 2'000'000'000);
  auto absolute = parse_time_range("5ms:+2s", "--time-range");
  EXPECT_FALSE(absolute.start->relative);
  EXPECT_TRUE(absolute.end->relative);
  auto open = parse_time_range(":7us", "--time-range");
  EXPECT_FALSE(open.start);
  EXPECT_EQ(open.end->ns, 7000);
  auto n = parse_nvtx_filter("a@b/c@d/3", "--filter-nvtx");  // the last @ and / split
  EXPECT_EQ(n.name, "a@b/c");
  EXPECT_EQ(n.domain, "d");
  EXPECT_EQ(n.instance, 3);
  EXPECT_EQ(n.row_name(), "d:a@b/c");
  auto slashed = parse_nvtx_filter("forward/layer1", "--filter-nvtx");  // no instance
  EXPECT_EQ(slashed.name, "forward/layer1");
  EXPECT_FALSE(slashed.instance);
  EXPECT_EQ(parse_rank_list("3,0-2", "--ranks"), (std::vector<std::int32_t>{3, 0, 1, 2}));
  auto s = parse_step_range("4", "--steps");
  EXPECT_EQ(s.first, 4);
  EXPECT_EQ(s.last, 4);
}

TEST(RowFilterSpec, RefusesWithTheOptionAndText) {
  auto refused = [](auto parse, std::string_view text) {
    try {
      parse(text);
    } catch (usage_error const& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto time = [](std::string_view s) { (void)parse_time_range(s, "--time-range"); };
  for (auto const* bad :
       {"", "5", "1:2:3", "x:", "-5:", "5:3", "1.5:", "+:", "5h:", "1e3:", "99999999999999999999:"})
    EXPECT_TRUE(refused(time, bad).starts_with("--time-range ")) << bad;
  EXPECT_NE(refused(time, "5:3").find("END is before START"), std::string::npos);
  auto nvtx = [](std::string_view s) { (void)parse_nvtx_filter(s, "--filter-nvtx"); };
  for (auto const* bad : {"", "@d", "n@", "/2", "@d/2"})
    EXPECT_TRUE(refused(nvtx, bad).starts_with("--filter-nvtx ")) << bad;
  auto ranks = [](std::string_view s) { (void)parse_rank_list(s, "--ranks"); };
  for (auto const* bad : {"", "a", "1,", "3-1", "-1", "1-", "0-99999999999"})
    EXPECT_TRUE(refused(ranks, bad).starts_with("--ranks ")) << bad;
  auto steps = [](std::string_view s) { (void)parse_step_range(s, "--steps"); };
  for (auto const* bad : {"", "a", "3:1", "1:", ":2", "-1"})
    EXPECT_TRUE(refused(steps, bad).starts_with("--steps ")) << bad;
  // --filter-name's pattern is checked by the CLI (regex_check), as the filter compiles it.
  EXPECT_THROW(name_regex("(", true), pattern_error);
  EXPECT_NO_THROW(name_regex("^nccl", true));
}

}  // namespace row_filter_test

}  // namespace tracesweep
