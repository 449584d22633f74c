// SPDX-License-Identifier: Apache-2.0
// The memory tables on every real Kineto trace with `[memory]` events against a brute-force
// oracle that parses the JSON itself (zlib + simdjson DOM, none of the reader's code): peaks per
// device, per-op sums with each event charged by a full scan of its thread's ops, per-step peaks
// and timeline bins by scanning every event.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/memory_table.hpp>

#include "ingest/chrome/test_json.hpp"
#include "support/trace_paths.hpp"

namespace fs = std::filesystem;
namespace ts = tracesweep;

namespace memory_oracle_test {

struct mem_event {
  std::int64_t t, bytes, allocated, reserved, thread;
  std::int32_t device;
};
struct op {
  std::int64_t start, end, thread;
  std::size_t index;
  std::string name;
};
struct oracle_trace {
  std::vector<mem_event> memory;  // file order
  std::vector<op> ops, steps;
};

/// The value of `r` as T, or `fallback` when it is absent or of another type.
template <class T>
T get_or(simdjson::simdjson_result<simdjson::dom::element> r, T fallback) {
  T v{};
  return r.get(v) == simdjson::SUCCESS ? v : fallback;
}

/// µs (an integer in these traces) → ns.
std::int64_t ns(simdjson::dom::element e) {
  std::int64_t v = 0;
  if (e.get_int64().get(v) == simdjson::SUCCESS) return v * 1000;
  return static_cast<std::int64_t>(std::llround(double(e) * 1000.0));
}

bool is_step_name(std::string_view n) {
  if (!n.starts_with("ProfilerStep#") || n.size() == 13) return false;
  return std::all_of(n.begin() + 13, n.end(), [](char c) { return c >= '0' && c <= '9'; });
}

oracle_trace parse(std::string const& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  oracle_trace o;
  std::size_t x_index = 0;
  for (auto e : doc["traceEvents"].get_array()) {
    auto const ph = get_or<std::string_view>(e["ph"], "");
    auto const name = get_or<std::string_view>(e["name"], "");
    auto const cat = get_or<std::string_view>(e["cat"], "");
    // The 2021 traces write an op's tid as a string ("25738") and a memory event's as a number.
    auto const tid_text = get_or<std::string_view>(e["tid"], "");
    std::int64_t tid = get_or<std::int64_t>(e["tid"], -1);
    std::from_chars(tid_text.data(), tid_text.data() + tid_text.size(), tid);  // "25738" only
    if (ph == "i" && name == "[memory]") {
      auto args = e["args"];
      auto const type = get_or<std::int64_t>(args["Device Type"], -1);
      auto const id = get_or<std::int64_t>(args["Device Id"], -1);
      // INT64_MIN: no total (PyTorch 1.9), derived below.
      auto const allocated = get_or<std::int64_t>(args["Total Allocated"], INT64_MIN);
      auto const reserved = get_or<std::int64_t>(args["Total Reserved"], 0);
      o.memory.push_back({ns(e["ts"]), std::int64_t(args["Bytes"]), allocated, reserved, tid,
                          type == 0 ? -1 : static_cast<std::int32_t>(id)});
      continue;
    }
    if (ph != "X") continue;
    auto const index = x_index++;
    bool const host_op = cat == "cpu_op" || cat == "Operator";
    auto const start = ns(e["ts"]);
    op const x{start, start + ns(e["dur"]), tid, index, std::string(name)};
    if ((host_op || cat == "user_annotation" || cat == "python_function") && is_step_name(name))
      o.steps.push_back(x);
    else if (host_op && !name.starts_with("enumerate(DataLoader)#") &&
             !name.starts_with("Optimizer.step#"))
      o.ops.push_back(x);
  }
  // Traces without totals (PyTorch 1.9): the running sum of Bytes per device in file order.
  std::map<std::int32_t, std::int64_t> running;
  for (auto& m : o.memory) {
    if (m.allocated == INT64_MIN) m.allocated = running[m.device] + m.bytes;
    running[m.device] = m.allocated;
  }
  return o;
}

/// The innermost op of the event's thread containing it, by a scan of every op: latest start,
/// then earliest end, then latest in the file. Empty name: none.
std::string charged_op(oracle_trace const& o, mem_event const& m) {
  op const* best = nullptr;
  for (auto const& x : o.ops) {
    if (x.thread != m.thread || x.start > m.t || x.end < m.t) continue;
    if (!best ||
        std::tuple(x.start, -x.end, x.index) > std::tuple(best->start, -best->end, best->index))
      best = &x;
  }
  return best ? best->name : std::string(ts::memory_outside_ops);
}

/// The device's events in time order (stable: file order for equal times).
std::vector<mem_event> device_events(oracle_trace const& o, std::int32_t device) {
  std::vector<mem_event> v;
  for (auto const& m : o.memory)
    if (m.device == device) v.push_back(m);
  std::stable_sort(v.begin(), v.end(), [](auto const& a, auto const& b) { return a.t < b.t; });
  return v;
}

/// The peak allocated (or reserved) over [lo, hi): events inside, and the last one before.
std::pair<std::int64_t, bool> peak(std::vector<mem_event> const& v, std::int64_t lo,
                                   std::int64_t hi, bool reserved) {
  std::int64_t best = INT64_MIN;
  bool any = false;
  for (auto const& m : v) {
    auto const value = reserved ? m.reserved : m.allocated;
    if (m.t < lo) best = value, any = true;  // the last before lo wins (time order)
  }
  for (auto const& m : v)
    if (m.t >= lo && m.t < hi)
      best = std::max(best, reserved ? m.reserved : m.allocated), any = true;
  return {any ? best : 0, any};
}

void check_trace(fs::path const& path) {
  SCOPED_TRACE(path.string());
  auto const o = parse(tracesweep::test::load_text(path));
  ASSERT_GT(o.memory.size(), 1000u);
  ts::event_table table;
  ts::read_options options;
  options.threads = 2;
  ts::read_input(path.string(), table, options);
  ts::trace_model const model(table);
  auto const m = ts::compute_memory_tables(model, 50);
  ASSERT_EQ(table.memory.size(), o.memory.size());
  auto const rank = table.rank.front();

  // Per device: events, peaks.
  std::map<std::int32_t, std::tuple<std::int64_t, std::int64_t, std::int64_t>> devices;
  for (auto const& e : o.memory) {
    auto& [n, a, r] = devices.try_emplace(e.device, 0, INT64_MIN, INT64_MIN).first->second;
    ++n, a = std::max(a, e.allocated), r = std::max(r, e.reserved);
  }
  ASSERT_EQ(m.devices.size(), devices.size());
  for (auto const& d : m.devices) {
    EXPECT_EQ(d.rank, rank);
    auto const& [n, a, r] = devices.at(d.device);
    EXPECT_EQ(d.events, n);
    EXPECT_EQ(d.peak_allocated, a);
    EXPECT_EQ(d.peak_reserved, r);
  }

  // Per (device, op): counts and sums.
  std::map<std::pair<std::int32_t, std::string>, std::array<std::int64_t, 4>> ops;
  for (auto const& e : o.memory) {
    auto& s = ops[{e.device, charged_op(o, e)}];
    if (e.bytes > 0) ++s[0], s[2] += e.bytes;
    if (e.bytes < 0) ++s[1], s[3] -= e.bytes;
  }
  ASSERT_EQ(m.ops.size(), ops.size());
  std::int64_t charged_to_ops = 0;
  for (auto const& r : m.ops) {
    auto const& s = ops.at({r.device, r.name});
    std::array<std::int64_t, 4> const shown{r.allocations, r.frees, r.allocated_bytes,
                                            r.freed_bytes};
    EXPECT_EQ(shown, s) << r.name;
    if (r.name != ts::memory_outside_ops) charged_to_ops += r.allocations + r.frees;
  }
  EXPECT_GT(charged_to_ops, 0);

  // Per step and per timeline bin: the peaks by scanning every event.
  std::size_t step_rows = 0;
  auto steps = o.steps;
  std::stable_sort(steps.begin(), steps.end(),
                   [](auto const& a, auto const& b) { return a.start < b.start; });
  for (auto const& [device, unused] : devices) {
    auto const v = device_events(o, device);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      auto const [p, any] = peak(v, steps[k].start, steps[k].end, false);
      if (!any) continue;
      auto const it = std::find_if(m.steps.begin(), m.steps.end(), [&](auto const& s) {
        return s.device == device && s.step == static_cast<std::int32_t>(k);
      });
      ASSERT_NE(it, m.steps.end()) << steps[k].name;
      EXPECT_EQ(it->step_name, steps[k].name);
      EXPECT_EQ(it->peak_allocated, p) << steps[k].name;
      ++step_rows;
    }
    for (auto const& b : m.timeline) {
      if (b.device != device) continue;
      EXPECT_EQ(b.peak_allocated, peak(v, b.start_ns, b.end_ns, false).first);
      EXPECT_EQ(b.peak_reserved, peak(v, b.start_ns, b.end_ns, true).first);
    }
    auto const bins = std::count_if(m.timeline.begin(), m.timeline.end(),
                                    [&](auto const& b) { return b.device == device; });
    EXPECT_GE(bins, 1);
    EXPECT_LE(bins, 50);
    auto const first = std::find_if(m.timeline.begin(), m.timeline.end(),
                                    [&](auto const& b) { return b.device == device; });
    EXPECT_EQ(first->start_ns, v.front().t);
    EXPECT_GT(first[bins - 1].end_ns, v.back().t);
  }
  EXPECT_EQ(m.steps.size(), step_rows);
}

TEST(MemoryOracle, EveryRealTraceWithMemoryEvents) {
  TRACESWEEP_REQUIRE_TRACES_DIR(root);
  std::vector<fs::path> traces;
  for (auto const& e : fs::recursive_directory_iterator(root / "kineto")) {
    if (!e.is_regular_file()) continue;
    auto const text = tracesweep::test::load_text(e.path());
    if (text.find("\"[memory]\"") != std::string::npos) traces.push_back(e.path());
  }
  std::sort(traces.begin(), traces.end());
  ASSERT_EQ(traces.size(), 3u);  // hta_df_index_resolver_v100 and the two tb_plugin resnet50 runs
  for (auto const& p : traces) check_trace(p);
}

}  // namespace memory_oracle_test
