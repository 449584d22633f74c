// SPDX-License-Identifier: Apache-2.0
// Kineto `[memory]` and Paddle memory events into event_table::memory on hand-written files:
// every field, host memory, Paddle's pools, signs and places, totals derived when absent (older
// PyTorch), baseTimeNanoseconds and the rank, defects counted, other instant events ignored, no
// row added, any thread count alike. Expected values are derived in the comments.
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include <gtest/gtest.h>

#include "test_json.hpp"

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <string>

namespace tracesweep::test {
namespace memory_events_test {

namespace fs = std::filesystem;

class MemoryEvents : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    _dir = fs::temp_directory_path() /
           ("tracesweep_memory_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(_dir);
  }
  void TearDown() override { fs::remove_all(_dir); }

  event_table read(std::string_view text, unsigned threads = 1) {
    auto const path = _dir / "trace.json";
    write_text(path, text);
    event_table t;
    read_options o;
    o.threads = threads;
    read_input(path.string(), t, o);
    return t;
  }

  fs::path _dir;
};

// A name with an escape ("[mem\\u006fry]") and one with a bad escape ("not \\q memory") follow
// their ph: both are compared as written, neither decoded nor refused.
std::string const gpu_trace = std::string(R"J({"distributedInfo": {"rank": 3},
  "baseTimeNanoseconds": 1000000, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 7, "ts": 10, "dur": 5},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 7,
   "ts": 12.5, "args": {"Device Type": 1, "Device Id": 2, "Addr": 99, "Bytes": 512,
   "Total Allocated": 1536, "Total Reserved": 2097152}},
  {"name": "[memory]", "ts": 13, "tid": 7, "ph": "i", "args": {"Bytes": -512,
   "Total Allocated": 1024, "Total Reserved": 2097152, "Device Id": 2, "Device Type": 1}},
  {"ph": "i", "name": "Iteration Start: PyTorch Profiler", "ts": 14, "s": "g"},
  {"ph": "i", "name": "[memory]", "tid": 7, "args": {"Bytes": 4}},
  {"ph": "i", "name": "[memory]", "tid": 7, "ts": 15, "args": {"Total Allocated": 4}},
)J") + "{\"ph\": \"i\", \"name\": \"[mem\\u006fry]\", \"tid\": 7, \"ts\": 16, "
       "\"args\": {\"Bytes\": 8}},\n"
       "{\"ph\": \"i\", \"name\": \"not \\q memory\", \"tid\": 7, \"ts\": 16, "
       "\"args\": {\"Bytes\": 8}}\n]}";

TEST_F(MemoryEvents, ReadsEveryFieldAndAddsNoRow) {
  auto const t = read(gpu_trace);
  ASSERT_EQ(t.size(), 1u);  // the cpu_op only
  EXPECT_EQ(t.inputs()[0].events, 1);
  auto const& m = t.memory;
  ASSERT_EQ(m.size(), 2u);
  // ts 12.5 µs = 12500 ns, + base 1000000 ns; ts 13 µs → 13000 + 1000000.
  EXPECT_EQ(m.time_ns, (std::vector<std::int64_t>{1'012'500, 1'013'000}));
  EXPECT_EQ(m.rank, (std::vector<std::int32_t>{3, 3}));
  EXPECT_EQ(m.device, (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(m.thread, (std::vector<std::int64_t>{7, 7}));
  EXPECT_EQ(m.bytes, (std::vector<std::int64_t>{512, -512}));
  EXPECT_EQ(m.pool, (std::vector<memory_pool>(2, memory_pool::allocated)));
  EXPECT_EQ(m.allocated, (std::vector<std::int64_t>{1536, 1024}));
  EXPECT_EQ(m.reserved, (std::vector<std::int64_t>{2097152, 2097152}));
  EXPECT_EQ(m.input, (std::vector<std::int32_t>{0, 0}));
  // The event without ts. Not memory events: the one without Bytes, and names that are not
  // "[memory]" as written after ph (an escape is not decoded, a bad one not refused).
  EXPECT_EQ(t.inputs()[0].skipped.at("invalid_memory_event"), 1);
  EXPECT_EQ(t.inputs()[0].skipped.size(), 1u);
}

// PyTorch 1.9 wrote Bytes only: the running total per device, from 0, in file order.
constexpr char const* totals_absent = R"({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 5, "tid": 5, "ts": 1, "dur": 9},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 2,
   "args": {"Device Type": 0, "Device Id": -1, "Bytes": 16}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 3,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 100}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 4,
   "args": {"Device Type": 0, "Device Id": -1, "Bytes": -48}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 5,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 28}}
]})";

TEST_F(MemoryEvents, DerivesTotalsWhenAbsent) {
  auto const t = read(totals_absent);
  auto const& m = t.memory;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m.device, (std::vector<std::int32_t>{-1, 0, -1, 0}));
  // CPU: 0 + 16 = 16, 16 - 48 = -32; GPU 0: 100, 100 + 28 = 128.
  EXPECT_EQ(m.allocated, (std::vector<std::int64_t>{16, 100, -32, 128}));
  EXPECT_EQ(m.reserved, (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_TRUE(t.inputs()[0].skipped.empty());
}

// Paddle's memory events (chrometracing_logger's layout): the category gives the pool and the
// sign, the place the device; the totals are the place's current_allocated / current_reserved.
constexpr char const* paddle_trace = R"J({"schemaVersion": "1.0.2", "traceEvents": [
  {"name": "matmul", "pid": 9, "tid": "7(C++)", "ts": 10, "dur": 20, "ph": "X",
   "cat": "Operator"},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 11, "ph": "i",
   "cat": "ReservedAllocate", "args": {"place": "Place(gpu:0)", "addr": "140000",
   "increase_bytes": 2048, "current_allocated": 0, "current_reserved": 2048,
   "peak_allocated": 0, "peak_reserved": 2048}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 12, "ph": "i", "cat": "Allocate",
   "args": {"place": "Place(gpu:0)", "addr": "140001", "increase_bytes": 1024,
   "current_allocated": 1024, "current_reserved": 2048}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 13, "ph": "i", "cat": "Allocate",
   "args": {"place": "Place(cpu)", "increase_bytes": 64, "current_allocated": 64,
   "current_reserved": 64}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 15, "ph": "i", "cat": "Free",
   "args": {"place": "Place(gpu:0)", "increase_bytes": -1024, "current_allocated": 0,
   "current_reserved": 2048}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 16, "ph": "i", "cat": "Allocate",
   "args": {"place": "Place(gpu_pinned)", "increase_bytes": 32, "current_allocated": 32,
   "current_reserved": 32}},
  {"name": "[memory]", "pid": 9, "tid": "8(C++)", "ts": 17, "ph": "i", "cat": "ReservedFree",
   "args": {"place": "CUDAPlace(1)", "increase_bytes": 4096}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 18, "ph": "i", "cat": "Allocate",
   "args": {"place": "Place(gpu:0)", "current_allocated": 1}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ph": "i", "cat": "Allocate",
   "args": {"place": "Place(gpu:0)", "increase_bytes": 8}},
  {"name": "[memory]", "pid": 9, "tid": "7(C++)", "ts": 19, "ph": "i", "cat": "Operator",
   "args": {"place": "Place(gpu:0)", "increase_bytes": 8}},
  {}
]})J";

TEST_F(MemoryEvents, ReadsPaddleEvents) {
  auto const t = read(paddle_trace);
  ASSERT_EQ(t.size(), 1u);  // matmul only
  EXPECT_EQ(t.inputs()[0].format, "paddle-json");
  auto const& m = t.memory;
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m.time_ns, (std::vector<std::int64_t>{11000, 12000, 13000, 15000, 17000}));
  EXPECT_EQ(m.device, (std::vector<std::int32_t>{0, 0, -1, 0, 1}));
  EXPECT_EQ(m.thread, (std::vector<std::int64_t>{7, 7, 7, 7, 8}));
  // A ReservedFree written with a positive increase_bytes is still a free.
  EXPECT_EQ(m.bytes, (std::vector<std::int64_t>{2048, 1024, 64, -1024, -4096}));
  auto const a = memory_pool::allocated, r = memory_pool::reserved;
  EXPECT_EQ(m.pool, (std::vector<memory_pool>{r, a, a, a, r}));
  // GPU 1's event has no totals: allocated stays at the running 0 (a reserved event does not
  // move it), reserved 0.
  EXPECT_EQ(m.allocated, (std::vector<std::int64_t>{0, 1024, 64, 0, 0}));
  EXPECT_EQ(m.reserved, (std::vector<std::int64_t>{2048, 2048, 64, 2048, 0}));
  // Skipped: the pinned place, the event without ts. Not memory events: no increase_bytes, a
  // category that is not a memory type.
  auto const& skipped = t.inputs()[0].skipped;
  EXPECT_EQ(skipped.at("memory_place_not_cpu_or_gpu"), 1);
  EXPECT_EQ(skipped.at("invalid_memory_event"), 1);
  EXPECT_EQ(skipped.size(), 2u);
}

TEST_F(MemoryEvents, AnyThreadCountGivesTheSameEvents) {
  // Many events in a long file, so the reader cuts it into many chunks.
  std::string text = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "op", "tid": 1, "ts": 0, "dur": 1})";
  for (int i = 0; i < 100000; ++i) {
    text.append(R"(, {"ph": "i", "name": "[memory]", "tid": 1, "ts": )").append(std::to_string(i));
    text.append(R"(, "args": {"Device Type": 1, "Device Id": 0, "Bytes": )");
    text.append(std::to_string(i % 7)).append("}}");
  }
  text += "]}";
  auto const one = read(text, 1);
  auto const four = read(text, 4);
  ASSERT_EQ(one.memory.size(), 100000u);
  EXPECT_EQ(one.memory.time_ns, four.memory.time_ns);
  EXPECT_EQ(one.memory.allocated, four.memory.allocated);
  // Running total after event i = Σ_{j ≤ i} (j mod 7).
  std::int64_t running = 0;
  for (int i = 0; i < 100000; ++i) {
    running += i % 7;
    ASSERT_EQ(one.memory.allocated[static_cast<std::size_t>(i)], running) << i;
  }
}

}  // namespace memory_events_test

}  // namespace tracesweep::test
