// SPDX-License-Identifier: Apache-2.0
// The memory tables of a Paddle export (Allocate / Free / ReservedAllocate / ReservedFree) on a
// hand-written fixture in Paddle's writer layout, against values derived by hand below, in the
// table structs and through the CLI's JSON.
//
// Fixture fixtures/paddle_memory.paddle_trace.json (µs; thread 7):
//   ProfileStep#0 [1000,1100), ProfileStep#1 [1100,1200)
//   Operator matmul [1010,1040) ⊃ OperatorInner matmul::compute [1012,1038)
//   UserDefined my_range [1050,1060); Operator relu [1110,1130)
//   memory (ts, type, place, increase_bytes → current_allocated / current_reserved):
//     1011 ReservedAllocate gpu:0 +4096 → 0 / 4096      (in matmul)
//     1013 Allocate gpu:0 +1024 → 1024 / 4096           (in matmul::compute → charged to matmul)
//     1020 Allocate gpu:0 +512 → 1536 / 4096            (matmul::compute → matmul)
//     1030 Free gpu:0 −1024 → 512 / 4096                (matmul::compute → matmul)
//     1055 Allocate cpu +64 → 64 / 64                   (my_range is no operator: outside ops)
//     1115 Allocate gpu:0 +2048 → 2560 / 4096           (relu)
//     1120 ReservedAllocate gpu:0 +4096 → 2560 / 8192   (relu)
//     1125 Free gpu:0 −512 → 2048 / 8192                (relu)
//     1150 ReservedFree gpu:0 −4096 → 2048 / 4096       (outside ops)
//     1160 Allocate gpu_pinned +128                     (skipped: neither host memory nor a GPU)
#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/memory_table.hpp>

#include "support/run_cli.hpp"

namespace ts = tracesweep;

namespace paddle_memory_test {

constexpr std::int64_t us = 1000;
std::string const fixture = std::string(TABLES_FIXTURES) + "/paddle_memory.paddle_trace.json";

ts::memory_tables tables_of_fixture() {
  ts::event_table table;
  ts::read_input(fixture, table, {});
  EXPECT_EQ(table.inputs()[0].skipped.at("memory_place_not_cpu_or_gpu"), 1);
  return ts::compute_memory_tables(ts::trace_model(table));
}

TEST(PaddleMemory, DevicePeaks) {
  auto const m = tables_of_fixture();
  ASSERT_EQ(m.devices.size(), 2u);
  // Host: one event, 64 / 64. GPU 0: 8 events; the largest current_allocated 2560, reserved 8192.
  EXPECT_EQ(m.devices[0].device, -1);
  EXPECT_EQ(m.devices[0].events, 1);
  EXPECT_EQ(m.devices[0].peak_allocated, 64);
  EXPECT_EQ(m.devices[0].peak_reserved, 64);
  EXPECT_EQ(m.devices[1].device, 0);
  EXPECT_EQ(m.devices[1].events, 8);
  EXPECT_EQ(m.devices[1].peak_allocated, 2560);
  EXPECT_EQ(m.devices[1].peak_reserved, 8192);
}

TEST(PaddleMemory, OpsByPool) {
  auto const m = tables_of_fixture();
  struct want {
    std::int32_t device;
    ts::memory_pool pool;
    char const* name;
    std::int64_t allocations, frees, allocated, freed, increase;
  };
  auto const a = ts::memory_pool::allocated, r = ts::memory_pool::reserved;
  // Allocated: relu 2048 − 512 = 1536; matmul (its inner stage's events) 1024 + 512 − 1024 = 512.
  // Reserved: matmul 4096, relu 4096 (ties by name), the free outside ops −4096.
  want const rows[] = {
      {-1, a, "(outside ops)", 1, 0, 64, 0, 64}, {0, a, "relu", 1, 1, 2048, 512, 1536},
      {0, a, "matmul", 2, 1, 1536, 1024, 512},   {0, r, "matmul", 1, 0, 4096, 0, 4096},
      {0, r, "relu", 1, 0, 4096, 0, 4096},       {0, r, "(outside ops)", 0, 1, 0, 4096, -4096},
  };
  ASSERT_EQ(m.ops.size(), std::size(rows));
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    auto const& o = m.ops[i];
    auto const& w = rows[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(o.device, w.device);
    EXPECT_EQ(o.pool, w.pool);
    EXPECT_EQ(o.name, w.name);
    EXPECT_EQ(o.allocations, w.allocations);
    EXPECT_EQ(o.frees, w.frees);
    EXPECT_EQ(o.allocated_bytes, w.allocated);
    EXPECT_EQ(o.freed_bytes, w.freed);
    EXPECT_EQ(o.increase(), w.increase);
  }
}

TEST(PaddleMemory, StepPeaks) {
  auto const m = tables_of_fixture();
  // Host: 64 in step 0, carried into step 1. GPU 0: step 0 peaks at 1536 (ts 1020); step 1
  // carries 512 in and peaks at 2560.
  ASSERT_EQ(m.steps.size(), 4u);
  std::int64_t const want[] = {64, 64, 1536, 2560};
  std::int32_t const device[] = {-1, -1, 0, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.steps[i].device, device[i]) << i;
    EXPECT_EQ(m.steps[i].step, static_cast<std::int32_t>(i % 2)) << i;
    EXPECT_EQ(m.steps[i].start_ns, (1000 + 100 * static_cast<std::int64_t>(i % 2)) * us) << i;
    EXPECT_EQ(m.steps[i].peak_allocated, want[i]) << i;
  }
}

TEST(PaddleMemory, CliJsonCarriesThePool) {
  auto const r =
      ts::test::run_cli("overview --table memory_ops --format json " + ts::test::quote(fixture));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("memory_place_not_cpu_or_gpu: 1"), std::string::npos) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element const doc = parser.parse(r.out);
  std::vector<std::string> seen;
  for (auto row : doc["memory_ops"].get_array()) {
    std::string line = std::string(std::string_view(row["pool"])) + " " +
                       std::string(std::string_view(row["name"])) + " " +
                       std::to_string(std::int64_t(row["increase_bytes"]));
    seen.push_back(line);
  }
  std::vector<std::string> const want = {
      "allocated (outside ops) 64", "allocated relu 1536", "allocated matmul 512",
      "reserved matmul 4096",       "reserved relu 4096",  "reserved (outside ops) -4096"};
  EXPECT_EQ(seen, want);
}

}  // namespace paddle_memory_test
