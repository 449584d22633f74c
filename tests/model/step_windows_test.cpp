// SPDX-License-Identifier: Apache-2.0
// The model's step windows on hand-built tables: a rank's profiler steps win; a rank without any
// takes its host user ranges whose whole name matches the step pattern (any case); rows of one
// name merge into one window, per rank and per (input, thread); steps() and the denominators
// stay profiler steps only.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tracesweep/error.hpp>
#include <tracesweep/model/trace_model.hpp>

#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace step_windows_test {

/// (name, start, end) of each window.
using window = std::tuple<std::string, std::int64_t, std::int64_t>;
std::vector<window> windows(ts::trace_model const& m, std::span<ts::step_window const> s) {
  std::vector<window> out;
  for (auto const& w : s)
    out.emplace_back(std::string(m.table().strings().at(w.name)), w.start, w.end);
  return out;
}

ts::model_options steps_named(std::string pattern) {
  ts::model_options o;
  o.step_pattern = std::move(pattern);
  return o;
}

/// Rank 0 (Kineto): two profiler steps and a user range named like a step. Rank 1 (nsys, threads
/// 1 and 2): user ranges, some named like steps.
ts::event_table& two_ranks(ts::test::table_builder& b) {
  b.input("kineto-json");
  b.host(event_kind::profiler_step, 100, 200, 1, 0, -1, "ProfilerStep#1");
  b.host(event_kind::profiler_step, 0, 100, 1, 0, -1, "ProfilerStep#0");
  b.host(event_kind::user_range, 0, 50, 1, 0, -1, "ProfilerStep#7");
  b.input("nsys-sqlite");
  b.host(event_kind::user_range, 10, 40, 1, 1, -1, "ProfilerStep#1");
  b.host(event_kind::user_range, 5, 30, 2, 1, -1, "ProfilerStep#1");  // same name, thread 2
  b.host(event_kind::user_range, 50, 90, 1, 1, -1, "ProfilerStep#2");
  b.host(event_kind::user_range, 95, 99, 1, 1, -1, "profilerstep#3");       // any case
  b.host(event_kind::user_range, 60, 70, 1, 1, -1, "xProfilerStep#4");      // not whole name
  b.host(event_kind::user_range, 60, 70, 1, 1, -1, "ProfilerStep#5 warm");  // not whole name
  b.host(event_kind::user_range, 80, 80, 1, 1, -1, "ProfilerStep#6");       // empty
  b.host(event_kind::cpu_op, 100, 110, 1, 1, -1, "ProfilerStep#8");         // not a range
  b.host(event_kind::api_call, 0, 120, 1, 1);
  return b.done();
}

TEST(StepWindows, ProfilerStepsWinUserRangesOnlyWithout) {
  ts::test::table_builder b;
  ts::trace_model const m(two_ranks(b));
  // Rank 0: its profiler steps; its range named ProfilerStep#7 is no step.
  EXPECT_EQ(windows(m, m.step_windows(0)),
            (std::vector<window>{{"ProfilerStep#0", 0, 100}, {"ProfilerStep#1", 100, 200}}));
  // Rank 1: whole names only, any case; ProfilerStep#1 of both threads is one window [5, 40).
  EXPECT_EQ(windows(m, m.step_windows(1)), (std::vector<window>{{"ProfilerStep#1", 5, 40},
                                                                {"ProfilerStep#2", 50, 90},
                                                                {"profilerstep#3", 95, 99}}));
}

TEST(StepWindows, PerThreadFromTheSameRows) {
  ts::test::table_builder b;
  ts::trace_model const m(two_ranks(b));
  EXPECT_EQ(
      windows(m, m.thread_step_windows(1, 1)),
      (std::vector<window>{
          {"ProfilerStep#1", 10, 40}, {"ProfilerStep#2", 50, 90}, {"profilerstep#3", 95, 99}}));
  EXPECT_EQ(windows(m, m.thread_step_windows(1, 2)),
            (std::vector<window>{{"ProfilerStep#1", 5, 30}}));
  EXPECT_EQ(windows(m, m.thread_step_windows(0, 1)),
            (std::vector<window>{{"ProfilerStep#0", 0, 100}, {"ProfilerStep#1", 100, 200}}));
  EXPECT_TRUE(m.thread_step_windows(1, 3).empty());
}

// Step windows move nothing of steps() or the denominators: rank 1 still has no steps.
TEST(StepWindows, StepsAndDenominatorsStayProfilerSteps) {
  ts::test::table_builder b;
  ts::trace_model const m(two_ranks(b));
  EXPECT_EQ(m.steps(0).size(), 2u);
  EXPECT_TRUE(m.steps(1).empty());
  EXPECT_EQ(m.rank_span(1), 120);  // its denominator: the span [0, 120)
}

TEST(StepWindows, StepNamesAreUserRangeNamesTheWholePatternMatches) {
  ts::test::table_builder b;
  auto const& t = two_ranks(b);
  ts::trace_model const m(t);
  auto const id = [&](std::string_view n) { return t.strings().find(n); };
  EXPECT_TRUE(m.is_step_name(id("ProfilerStep#1")));
  EXPECT_TRUE(m.is_step_name(id("ProfilerStep#7")));  // a name; rank 0 just has profiler steps
  EXPECT_TRUE(m.is_step_name(id("profilerstep#3")));
  EXPECT_FALSE(m.is_step_name(id("xProfilerStep#4")));
  EXPECT_FALSE(m.is_step_name(id("ProfilerStep#5 warm")));
  EXPECT_FALSE(m.is_step_name(id("ProfilerStep#8")));  // only a cpu_op carries it
}

TEST(StepWindows, PatternIsAModelOption) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.host(event_kind::user_range, 0, 10, 1, 0, -1, "iter 1");
  b.host(event_kind::user_range, 10, 20, 1, 0, -1, "ProfilerStep#1");
  auto const& t = b.done();
  ts::trace_model const custom(t, steps_named(R"(iter \d+)"));
  EXPECT_EQ(windows(custom, custom.step_windows(0)), (std::vector<window>{{"iter 1", 0, 10}}));
  ts::trace_model const none(t, steps_named(""));  // no user range is a step
  EXPECT_TRUE(none.step_windows(0).empty());
  EXPECT_FALSE(none.is_step_name(t.strings().find("ProfilerStep#1")));
  EXPECT_THROW((void)ts::trace_model(t, steps_named("(")), ts::pattern_error);
}

}  // namespace step_windows_test
