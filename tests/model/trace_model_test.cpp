// SPDX-License-Identifier: Apache-2.0
// The trace model on hand-built tables: producers, dense device ids, launch links and the kernel
// time they give, steps and denominators, host-range nesting (nested, touching, overlapping
// ranges, several threads and inputs) and the outermost stages. Expected values are worked out
// in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace trace_model_test {

std::vector<std::size_t> rows_of(std::span<std::size_t const> s) {
  return {s.begin(), s.end()};
}

TEST(TraceModel, ProducersFromFormats) {
  ts::test::table_builder b;
  b.input("nsys-sqlite").host(event_kind::api_call, 0, 1, 1, 3);
  b.input("kineto-json").host(event_kind::cpu_op, 0, 1, 1, 1);
  b.input("paddle-json").host(event_kind::cpu_op, 0, 1, 1, 2);
  b.input("other").host(event_kind::cpu_op, 0, 1, 1, 2);
  ts::trace_model const m(b.done());
  EXPECT_EQ(m.input_producer(0), ts::producer::nsys);
  EXPECT_EQ(m.input_producer(1), ts::producer::kineto);
  EXPECT_EQ(m.input_producer(2), ts::producer::paddle);
  EXPECT_EQ(m.input_producer(3), ts::producer::other);
  EXPECT_EQ(m.row_producer(2), ts::producer::paddle);
  EXPECT_TRUE(m.rank_has_producer(2, ts::producer::paddle));
  EXPECT_FALSE(m.rank_has_producer(1, ts::producer::paddle));
  EXPECT_TRUE(m.rank_has_producer(2, ts::producer::other));
  ASSERT_EQ(m.ranks().size(), 3u);
  EXPECT_EQ(m.ranks()[0], 1);
  EXPECT_EQ(m.rank_index(3), 2u);
  EXPECT_EQ(m.rank_index(7), 3u);  // absent
}

// rank_index on consecutive ranks (found by a subtraction) and on gapped ones (a binary
// search), ranks absent below, between and above, at the ends of int32.
TEST(TraceModel, RankIndexOfConsecutiveAndGappedRanks) {
  auto model_of = [](std::vector<std::int32_t> const& ranks) {
    auto b = std::make_unique<ts::test::table_builder>();
    for (auto r : ranks) b->input("kineto-json").host(event_kind::cpu_op, 0, 1, 1, r);
    return std::pair(std::move(b), std::vector<std::int32_t>(ranks));
  };
  for (auto const& ranks : std::vector<std::vector<std::int32_t>>{{0, 1, 2, 3},
                                                                  {5, 6, 7},
                                                                  {-2, -1, 0},
                                                                  {0, 2, 3},
                                                                  {1, 7, 100},
                                                                  {INT32_MAX - 1, INT32_MAX},
                                                                  {INT32_MIN, INT32_MIN + 1},
                                                                  {INT32_MIN, INT32_MAX}}) {
    auto [b, want] = model_of(ranks);
    ts::trace_model const m(b->done());
    std::sort(want.begin(), want.end());
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(m.rank_index(want[k]), k);
    for (std::int64_t r : {std::int64_t{INT32_MIN}, std::int64_t{-3}, std::int64_t{1},
                           std::int64_t{4}, std::int64_t{50}, std::int64_t{INT32_MAX}}) {
      if (std::find(want.begin(), want.end(), r) == want.end()) {
        EXPECT_EQ(m.rank_index(static_cast<std::int32_t>(r)), want.size()) << r;
      }
    }
  }
}

// Dense ids ordered by (rank, device, input), whatever order rows come in; host rows have none.
TEST(TraceModel, DeviceIdsByRankDeviceInput) {
  ts::test::table_builder b;
  b.input("kineto-json");
  auto const k1 = b.device(event_kind::kernel, 0, 1, /*device*/ 1, 7, /*rank*/ 1);
  auto const k0 = b.device(event_kind::memcpy, 0, 1, 0, 7, 1);
  auto const h = b.host(event_kind::cpu_op, 0, 1, 5, 1);
  b.input("kineto-json");
  auto const k2 = b.device(event_kind::memset, 0, 1, 0, 7, /*rank*/ 0);
  auto const k3 = b.device(event_kind::kernel, 0, 1, 0, 9, 1);  // input 1, rank 1, device 0
  ts::trace_model const m(b.done());
  auto const d = m.devices();
  ASSERT_EQ(d.size(), 4u);
  auto key = [&](std::size_t k) { return std::tuple(d[k].rank, d[k].device, d[k].input); };
  EXPECT_EQ(key(0), std::tuple(0, 0, 1));
  EXPECT_EQ(key(1), std::tuple(1, 0, 0));
  EXPECT_EQ(key(2), std::tuple(1, 0, 1));
  EXPECT_EQ(key(3), std::tuple(1, 1, 0));
  auto const g = m.device_group();
  EXPECT_EQ(g[k2], 0u);
  EXPECT_EQ(g[k0], 1u);
  EXPECT_EQ(g[k3], 2u);
  EXPECT_EQ(g[k1], 3u);
  EXPECT_EQ(g[h], ts::no_device);
}

// Many devices whose rows interleave, in several inputs (past the memo of recent keys), small
// (rank, device) keys found by direct index and others (rank past 1023, device past 63) by hash:
// each row's id is the rank of its (rank, device, input) among all of them.
TEST(TraceModel, DeviceIdsOfManyInterleavedDevicesEqualTheirSortedRank) {
  ts::test::table_builder b;
  std::mt19937 rng(7);
  std::vector<std::tuple<std::int32_t, std::int32_t, std::int32_t>> key;  // per row
  std::vector<std::size_t> rows;
  for (std::int32_t input = 0; input < 3; ++input) {
    b.input("kineto-json");
    for (int i = 0; i < 2000; ++i) {
      std::int32_t const ranks[] = {0, 1, 2, 3, 4, 1500, 70000};
      auto const rank = ranks[rng() % 7];
      auto device = static_cast<std::int32_t>(rng() % (input == 1 ? 2 : 12));
      if (rng() % 9 == 0) device += 64;
      if (rng() % 7 == 0) b.host(event_kind::cpu_op, i, i + 1, 3, rank);
      rows.push_back(b.device(event_kind::kernel, i, i + 1, device, 7, rank));
      key.emplace_back(rank, device, input);
    }
  }
  ts::trace_model const m(b.done());
  auto sorted = key;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  ASSERT_GT(sorted.size(), 64u);
  ASSERT_EQ(m.devices().size(), sorted.size());
  auto const g = m.device_group();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto const at = std::lower_bound(sorted.begin(), sorted.end(), key[i]) - sorted.begin();
    ASSERT_EQ(g[rows[i]], static_cast<ts::group_id>(at)) << i;
  }
}

// The device ids and communication names built in chunks on three threads (rows past three
// chunks of 2^16, input boundaries inside chunks, a device and a kernel name first seen in the
// last chunk) equal the brute-force ranks and flags, and the one-thread model's; every host row
// is no_device.
TEST(TraceModel, DeviceIdsAndCommunicationNamesInChunksEqualOneThread) {
  ts::test::table_builder b;
  std::mt19937 rng(11);
  std::vector<std::tuple<std::int32_t, std::int32_t, std::int32_t>> key;  // per device row
  std::vector<std::size_t> rows;
  std::size_t const per_input[] = {90'000, 40'000, 120'000};
  for (std::int32_t input = 0; input < 3; ++input) {
    b.input("nsys-sqlite");
    for (std::size_t i = 0; i < per_input[input]; ++i) {
      auto const t = static_cast<std::int64_t>(i);
      bool const late = input == 2 && i > 100'000;  // within the last chunk only
      auto const rank = static_cast<std::int32_t>(rng() % 4) + (late ? 2000 : 0);
      auto const device = static_cast<std::int32_t>(rng() % 8);
      if (i % 5 == 0) b.host(event_kind::api_call, t, t + 1, 3, rank, -1, "ncclHostCall");
      auto const name = late && i % 3 == 0 ? "ncclKernel_AllReduce" : "gemm";
      rows.push_back(b.device(event_kind::kernel, t, t + 1, device, 7, rank, -1, name));
      key.emplace_back(rank, device, input);
    }
  }
  auto const& table = b.done();
  ts::model_options three;
  three.threads = 3;
  ts::trace_model const chunked(table, three);
  ts::trace_model const serial(table);
  auto sorted = key;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  ASSERT_EQ(chunked.devices().size(), sorted.size());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    auto const& d = chunked.devices()[k];
    ASSERT_EQ(std::tuple(d.rank, d.device, d.input), sorted[k]) << k;
  }
  auto const g = chunked.device_group();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto const at = std::lower_bound(sorted.begin(), sorted.end(), key[i]) - sorted.begin();
    ASSERT_EQ(g[rows[i]], static_cast<ts::group_id>(at)) << i;
  }
  std::vector<std::uint8_t> is_device_row(table.size(), 0);
  for (auto const r : rows) is_device_row[r] = 1;
  for (std::size_t i = 0; i < table.size(); ++i) {  // each chunk writes its host rows too
    if (is_device_row[i] == 0) {
      ASSERT_EQ(g[i], ts::no_device) << i;
    }
  }
  auto const s = serial.device_group();
  EXPECT_TRUE(std::equal(g.begin(), g.end(), s.begin(), s.end()));
  auto const& strings = table.strings();
  auto const flags = chunked.communication_names();
  EXPECT_EQ(flags[strings.find("ncclKernel_AllReduce")], 1);
  EXPECT_EQ(flags[strings.find("gemm")], 0);
  EXPECT_EQ(flags[strings.find("ncclHostCall")], 0);  // no kernel carries it
  auto const one = serial.communication_names();
  EXPECT_TRUE(std::equal(flags.begin(), flags.end(), one.begin(), one.end()));
}

// Correlation ids past 32 bits (kept in the table's side table) link exactly: an id that
// differs from another only above bit 31 links nothing.
TEST(TraceModel, LaunchLinksWithCorrelationsPast32Bits) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t const wide = (std::int64_t{1} << 33) + 5;
  auto const call = b.host(event_kind::api_call, 10, 20, 1, 0, wide);
  auto const narrow_call = b.host(event_kind::api_call, 11, 19, 1, 0, 5);
  auto const k = b.device(event_kind::kernel, 25, 35, 0, 7, 0, wide);
  auto const k_narrow = b.device(event_kind::kernel, 40, 45, 0, 7, 0, 5);
  auto const k_alias = b.device(event_kind::kernel, 50, 55, 0, 7, 0, (std::int64_t{1} << 34) + 5);
  ts::trace_model const m(b.done());
  EXPECT_EQ(m.launcher(k), static_cast<std::int64_t>(call));
  EXPECT_EQ(m.launcher(k_narrow), static_cast<std::int64_t>(narrow_call));
  EXPECT_EQ(m.launcher(k_alias), -1);
}

// Runtime call ↔ device row by (input, correlation); the first call of a correlation wins;
// Paddle drops device rows no call launched, Kineto keeps them.
TEST(TraceModel, LaunchLinks) {
  ts::test::table_builder b;
  b.input("kineto-json");
  auto const c1 = b.host(event_kind::api_call, 10, 20, /*thread*/ 1, 0, /*corr*/ 5);
  auto const c1b = b.host(event_kind::api_call, 30, 40, 1, 0, 5);  // same correlation, later
  auto const k1 = b.device(event_kind::kernel, 25, 35, 0, 7, 0, 5);
  auto const orphan = b.device(event_kind::kernel, 50, 60, 0, 7, 0, 99);
  auto const nocorr = b.device(event_kind::memcpy, 50, 60, 0, 7, 0, -1);
  b.input("paddle-json");
  auto const c2 = b.host(event_kind::api_call, 10, 20, 1, 1, 6);
  auto const k2 = b.device(event_kind::kernel, 21, 30, 0, 7, 1, 6);
  auto const k_other_input = b.device(event_kind::kernel, 21, 30, 0, 7, 1, 5);  // 5 is input 0's
  auto const p_orphan = b.device(event_kind::memset, 40, 45, 0, 7, 1, 98);
  ts::trace_model const m(b.done());
  EXPECT_EQ(m.launcher(k1), static_cast<std::int64_t>(c1));
  EXPECT_EQ(m.launcher(orphan), -1);
  EXPECT_EQ(m.launcher(nocorr), -1);
  EXPECT_EQ(m.launcher(c1b), -1);  // not device activity
  EXPECT_EQ(m.launcher(k2), static_cast<std::int64_t>(c2));
  EXPECT_EQ(m.launcher(k_other_input), -1);
  EXPECT_TRUE(m.kept(orphan));
  EXPECT_TRUE(m.kept(nocorr));
  EXPECT_TRUE(m.kept(k2));
  EXPECT_FALSE(m.kept(k_other_input));
  EXPECT_FALSE(m.kept(p_orphan));
  EXPECT_TRUE(m.kept(c1));
}

// Launch links against a brute-force map of (input, rank, correlation) to the first call, on
// random tables of many inputs and ranks, dense ids, sparse ids, ids in a few clusters far apart
// (the pages of a direct table), repeated ids across ranks.
TEST(TraceModel, LaunchLinksEqualAMapOfTheFirstCall) {
  std::mt19937_64 rng(41);
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE(round);
    ts::test::table_builder b;
    std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, std::size_t> first;
    std::vector<std::tuple<std::size_t, std::int32_t, std::int32_t, std::int64_t>> devices;
    for (std::int32_t input = 0; input < 6; ++input) {
      b.input("kineto-json");
      auto const ids = rng() % 3;  // 0 dense, 1 sparse, 2 clustered
      for (int k = 0; k < 300; ++k) {
        auto const rank = static_cast<std::int32_t>(rng() % 4);
        auto const draw = static_cast<std::int64_t>(rng() % 200);
        std::int64_t const corr = ids == 0 ? draw
                                  : ids == 1
                                      ? draw * 1'000'003
                                      : draw % 4 * (std::int64_t{1} << 26) + 4090 + draw / 4 * 7;
        auto const t = static_cast<std::int64_t>(k) * 10;
        if (rng() % 2 == 0) {
          auto const row = b.host(event_kind::api_call, t, t + 5, 1, rank, corr);
          first.try_emplace({input, rank, corr}, row);
        } else {
          auto const row = b.device(event_kind::kernel, t, t + 5, 0, 7, rank, corr);
          devices.emplace_back(row, input, rank, corr);
        }
      }
    }
    ts::trace_model const m(b.done());
    for (auto const& [row, input, rank, corr] : devices) {
      auto const it = first.find({input, rank, corr});
      EXPECT_EQ(m.launcher(row), it == first.end() ? -1 : static_cast<std::int64_t>(it->second))
          << row;
    }
  }
}

// Kernel time launched: Paddle's rule (calls of one thread lying wholly inside [start, end]) and
// Kineto's (calls of any thread of the rank starting in [start, end)).
TEST(TraceModel, KernelTimeLaunched) {
  ts::test::table_builder b;
  b.input("kineto-json");
  b.host(event_kind::api_call, 10, 20, /*thread*/ 1, 0, 1);
  b.device(event_kind::kernel, 20, 30, 0, 7, 0, 1);  // 10
  b.device(event_kind::memcpy, 30, 70, 0, 7, 0, 1);  // not a kernel: never counted
  b.host(event_kind::api_call, 15, 25, /*thread*/ 2, 0, 2);
  b.device(event_kind::kernel, 30, 33, 0, 7, 0, 2);  // 3
  b.host(event_kind::api_call, 40, 50, 1, 0, 3);
  b.device(event_kind::kernel, 50, 57, 0, 7, 0, 3);  // 7
  b.device(event_kind::kernel, 60, 62, 0, 8, 0, 3);  // 2 more from the same call
  ts::trace_model const m(b.done());
  // Rank 0: calls starting at 10 → 10 (the memcpy it launched does not count), 15 → 3, 40 → 9.
  EXPECT_EQ(m.kernel_time_launched_in(0, 10, 11), 10);
  EXPECT_EQ(m.kernel_time_launched_in(0, 15, 16), 3);
  EXPECT_EQ(m.kernel_time_launched_in(0, 10, 40), 13);  // half-open: the call at 40 is out
  EXPECT_EQ(m.kernel_time_launched_in(0, 40, 41), 9);
  EXPECT_EQ(m.kernel_time_launched_in(0, 20, 40), 0);  // kernels run there, no call starts
  // Thread 1: calls [10,20) → 10 and [40,50) → 9.
  EXPECT_EQ(m.kernel_time_inside(0, 1, 10, 50), 19);
  EXPECT_EQ(m.kernel_time_inside(0, 1, 10, 49), 10);  // the second call ends past 49
  EXPECT_EQ(m.kernel_time_inside(0, 1, 11, 50), 9);   // the first starts before 11
  EXPECT_EQ(m.kernel_time_inside(0, 2, 0, 100), 3);
  EXPECT_EQ(m.kernel_time_inside(0, 3, 0, 100), 0);
  EXPECT_EQ(m.kernel_time_inside(1, 1, 0, 100), 0);
  // Rank 0, any thread, by call start: 10 (start 10), 3 (start 15), 9 (start 40).
  EXPECT_EQ(m.kernel_time_launched_in(0, 10, 40), 13);  // half-open: 40 not in
  EXPECT_EQ(m.kernel_time_launched_in(0, 15, 41), 12);
  EXPECT_EQ(m.kernel_time_launched_in(0, 40, 40), 0);
  EXPECT_EQ(m.kernel_time_launched_in(5, 0, 100), 0);  // no such rank
}

// Steps are host profiler_step rows per rank, by start; a rank's span is max end − min start of
// its kept rows. NVTX ranges are never steps. (The denominators: tests/session.)
TEST(TraceModel, StepsAndSpans) {
  ts::test::table_builder b;
  b.input("kineto-json");
  auto const s2 = b.host(event_kind::profiler_step, 100, 200, 1, 0);
  auto const s1 = b.host(event_kind::profiler_step, 0, 100, 1, 0);    // touches s2
  auto const s3 = b.host(event_kind::profiler_step, 150, 260, 2, 0);  // overlaps s2
  auto const s4 = b.host(event_kind::profiler_step, 300, 310, 1, 0);
  b.host(event_kind::cpu_op, -50, 400, 1, 0);  // the span does not matter with steps
  b.input("paddle-json");
  b.host(event_kind::cpu_op, 1000, 1010, 1, 1);
  b.host(event_kind::api_call, 1005, 1006, 1, 1, 4);
  b.device(event_kind::kernel, 1010, 1030, 0, 7, 1, 4);
  b.device(event_kind::kernel, 900, 2000, 0, 7, 1, 77);  // unlaunched: dropped, not in the span
  b.input("nsys-sqlite");
  b.host(event_kind::user_range, 10, 20, 1, 2, -1, "ProfilerStep#1");
  b.host(event_kind::api_call, 5, 30, 1, 2);
  ts::trace_model const m(b.done());
  EXPECT_EQ(rows_of(m.steps(0)), (std::vector<std::size_t>{s1, s2, s3, s4}));
  EXPECT_TRUE(m.steps(1).empty());
  EXPECT_TRUE(m.steps(2).empty());
  EXPECT_EQ(m.rank_span(0), 450);  // [-50, 400)
  EXPECT_EQ(m.rank_span(1), 30);   // [1000, 1030): the unlaunched kernel is not kept
  EXPECT_EQ(m.rank_span(2), 25);   // [5, 30)
}

// One thread, times in ns:
//   R1 [0,100) ⊃ R2 [10,50) ⊃ call C1 [20,30); R3 [50,60) touches R2's end: a sibling under R1,
//   with call C2 [55,58); call C3 [85,105) is inside no open range (R1 ends at 100); R4 [90,120)
//   overlaps R1's end: it still hangs under R1; call C4 [95,110) lies in R4 only; R5 [200,300)
//   and call C5 [200,210) start together: the call comes after the range, inside it; R6
//   [200,250) starts with R5 and is shorter: under R5. Thread 2 of the same input and thread 1
//   of another input have their own trees; device rows have no parent.
TEST(TraceModel, NestingAndParents) {
  ts::test::table_builder b;
  b.input("paddle-json");
  auto const c1 = b.host(event_kind::api_call, 20, 30, 1);
  auto const r2 = b.host(event_kind::cpu_op, 10, 50, 1);
  auto const r1 = b.host(event_kind::cpu_op, 0, 100, 1);
  auto const r3 = b.host(event_kind::cpu_op, 50, 60, 1);
  auto const c2 = b.host(event_kind::api_call, 55, 58, 1);
  auto const c3 = b.host(event_kind::api_call, 85, 105, 1);
  auto const r4 = b.host(event_kind::cpu_op, 90, 120, 1);
  auto const c4 = b.host(event_kind::api_call, 95, 110, 1);
  auto const c5 = b.host(event_kind::api_call, 200, 210, 1);
  auto const r6 = b.host(event_kind::cpu_op, 200, 250, 1);
  auto const r5 = b.host(event_kind::cpu_op, 200, 300, 1);
  auto const t2 = b.host(event_kind::cpu_op, 12, 40, 2);  // another thread: top level
  auto const k = b.device(event_kind::kernel, 20, 30, 0, 1);
  b.input("paddle-json");
  auto const other = b.host(event_kind::cpu_op, 20, 30, 1);  // same thread id, other input
  ts::trace_model const m(b.done());
  auto p = [&](std::size_t row) { return m.parent(row); };
  auto const id = [](std::size_t r) { return static_cast<std::int64_t>(r); };
  EXPECT_EQ(p(r1), -1);
  EXPECT_EQ(p(r2), id(r1));
  EXPECT_EQ(p(c1), id(r2));
  EXPECT_EQ(p(r3), id(r1));
  EXPECT_EQ(p(c2), id(r3));
  EXPECT_EQ(p(c3), -1);
  EXPECT_EQ(p(r4), id(r1));
  EXPECT_EQ(p(c4), id(r4));
  EXPECT_EQ(p(r5), -1);
  EXPECT_EQ(p(r6), id(r5));
  EXPECT_EQ(p(c5), id(r6));
  EXPECT_EQ(p(t2), -1);
  EXPECT_EQ(p(k), -1);
  EXPECT_EQ(p(other), -1);
  EXPECT_EQ(m.depth(r1), 0u);
  EXPECT_EQ(m.depth(c1), 2u);
  EXPECT_EQ(m.depth(c4), 2u);
  EXPECT_EQ(m.depth(c5), 2u);
}

// Outermost stages per thread: a stage starting before the end of the last outermost stage of
// its thread is not one (nested, or overlapping its end); touching stages both count; steps and
// other ranges do not hide stages.
TEST(TraceModel, OutermostStages) {
  ts::test::table_builder b;
  b.input("paddle-json");
  b.host(event_kind::profiler_step, 0, 1000, 1);
  auto const f1 = b.host(event_kind::forward, 0, 50, 1);
  b.host(event_kind::backward, 10, 20, 1);                     // inside f1
  auto const d1 = b.host(event_kind::data_loader, 50, 60, 1);  // touches f1: outermost
  b.host(event_kind::optimizer, 55, 70, 1);                    // overlaps d1's end
  b.host(event_kind::cpu_op, 100, 200, 1);
  auto const o1 = b.host(event_kind::optimizer, 110, 120, 1);  // under an op, not a stage
  auto const f2 = b.host(event_kind::forward, 12, 40, 2);      // another thread
  b.device(event_kind::kernel, 0, 10, 0, 1);
  ts::trace_model const m(b.done());
  EXPECT_EQ(rows_of(m.outermost_stages()), (std::vector<std::size_t>{f1, d1, o1, f2}));
}

TEST(TraceModel, NoOutermostStagesWithoutStageRowsYetParents) {
  // An nsys export's host rows: CUDA API calls inside NVTX ranges, no stage rows.
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  auto const range = b.host(event_kind::user_range, 0, 100, 1);
  auto const call = b.host(event_kind::api_call, 10, 20, 1);
  auto const inner = b.host(event_kind::user_range, 30, 40, 1);
  b.device(event_kind::kernel, 15, 25, 0, 7);
  ts::trace_model const m(b.done());
  EXPECT_TRUE(m.outermost_stages().empty());
  EXPECT_EQ(m.parent(call), static_cast<std::int64_t>(range));
  EXPECT_EQ(m.parent(inner), static_cast<std::int64_t>(range));
  EXPECT_EQ(m.parent(range), -1);
}

// Parts built on first use are the same from every thread.
TEST(TraceModel, LazyPartsAreBuiltOnce) {
  ts::test::table_builder b;
  b.input("kineto-json");
  b.host(event_kind::profiler_step, 0, 10, 1);
  ts::trace_model const m(b.done());
  std::vector<std::thread> threads;
  std::vector<std::int64_t> totals(4);
  for (std::size_t i = 0; i < totals.size(); ++i)
    threads.emplace_back([&, i] { totals[i] = m.rank_span(0); });
  for (auto& t : threads) t.join();
  for (auto v : totals) EXPECT_EQ(v, 10);
}

// Nesting on tables the size of a real trace's threads: each thread's API calls come as long runs
// in start order (a producer's table of calls), interleaved across threads, and its nested ranges
// after them in end order (as nsys records NVTX ranges), then random overlapping ranges and
// calls, on several threads (negative ids too) and inputs. Parents and outermost stages against
// a reference that sorts every host row at once and sweeps it.
TEST(TraceModel, NestingOfLongRunsAgainstOneSortOfEveryRow) {
  using row_key = std::tuple<std::int32_t, std::int64_t, std::int64_t, bool, std::int64_t,
                             std::size_t>;  // input, thread, start, api call, -end, row
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    std::mt19937_64 rng(seed);
    ts::test::table_builder b;
    for (int input = 0; input < 2; ++input) {
      b.input(seed % 2 ? "nsys-sqlite" : "kineto-json");
      std::int64_t const threads[] = {1, -7, 40};
      std::map<std::int64_t, std::int64_t> clock;
      for (int k = 0; k < 3000; ++k) {  // calls, threads interleaved, each in start order
        auto const thread = threads[rng() % 3];
        auto& at = clock[thread];
        at += static_cast<std::int64_t>(rng() % 20);
        b.host(event_kind::api_call, at, at + 1 + static_cast<std::int64_t>(rng() % 30), thread);
        if (rng() % 10 == 0) b.device(event_kind::kernel, at, at + 5, 0, 1);
      }
      // Nested ranges in end order: a parent after its children.
      auto nest = [&](auto&& self, std::int64_t lo, std::int64_t hi, std::int64_t thread,
                      int depth) -> void {
        if (depth > 3 || hi - lo < 4) return;
        auto const mid = lo + (hi - lo) / 2;
        self(self, lo, mid, thread, depth + 1);
        self(self, mid, hi, thread, depth + 1);
        auto const kind = depth == 1 ? event_kind::forward : event_kind::cpu_op;
        b.host(kind, lo, hi, thread);
      };
      for (std::int64_t lo = 0; lo < 40000; lo += 1000)
        nest(nest, lo, lo + 900, threads[lo % 3], 0);
      for (int k = 0; k < 300; ++k) {  // anything: overlaps, ties, stages
        auto const start = static_cast<std::int64_t>(rng() % 40000);
        auto const kinds = {event_kind::cpu_op, event_kind::api_call, event_kind::backward,
                            event_kind::optimizer};
        b.host(*(kinds.begin() + static_cast<std::ptrdiff_t>(rng() % 4)), start,
               start + static_cast<std::int64_t>(rng() % 500), threads[rng() % 3]);
      }
    }
    auto const& t = b.done();
    ts::trace_model const m(t);
    std::vector<row_key> order;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.device[i] < 0)
        order.emplace_back(t.input_of(i), t.stream[i], t.start_ns[i],
                           t.kind[i] == event_kind::api_call, -t.end_ns[i], i);
    std::sort(order.begin(), order.end());
    std::vector<std::int64_t> parent(t.size(), -1);
    std::vector<std::size_t> stages, open;
    std::int64_t stage_end = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      auto const i = std::get<5>(order[k]);
      if (k == 0 || std::get<0>(order[k]) != std::get<0>(order[k - 1]) ||
          std::get<1>(order[k]) != std::get<1>(order[k - 1]))
        open.clear(), stage_end = INT64_MIN;
      while (!open.empty() && t.end_ns[open.back()] <= t.start_ns[i]) open.pop_back();
      if (t.kind[i] == event_kind::api_call) {
        for (auto j = open.size(); j-- > 0;)
          if (t.start_ns[open[j]] <= t.start_ns[i] && t.end_ns[i] <= t.end_ns[open[j]]) {
            parent[i] = static_cast<std::int64_t>(open[j]);
            break;
          }
        continue;
      }
      if (!open.empty()) parent[i] = static_cast<std::int64_t>(open.back());
      open.push_back(i);
      if (ts::is_stage(t.kind[i]) && t.start_ns[i] >= stage_end)
        stages.push_back(i), stage_end = t.end_ns[i];
    }
    std::size_t nested = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      ASSERT_EQ(m.parent(i), parent[i]) << "seed " << seed << " row " << i;
      nested += parent[i] >= 0 ? 1 : 0;
    }
    EXPECT_GT(nested, 1000u) << "seed " << seed;  // the table nests: the check means something
    EXPECT_EQ(rows_of(m.outermost_stages()), stages) << "seed " << seed;
  }
}

}  // namespace trace_model_test
