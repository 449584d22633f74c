// SPDX-License-Identifier: Apache-2.0
// diagnose's memory list finds exactly the generator's planted staircase (rank 0's first
// device) and nothing on the flat control (every other device), in Kineto JSON and nsys SQLite
// (CUDA_GPU_MEMORY_USAGE_EVENTS), through the command line; the per-step peaks it reports are
// replayed from the generated memory events; the threshold and the run length are honoured; and
// `overview --table memory` agrees with the events.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include "support/run_cli.hpp"

namespace fs = std::filesystem;
namespace ts = tracesweep;
using ts::test::quote;
using ts::test::run_cli;

namespace diagnose_memory_test {

struct generated {
  ts::event_table table;
  ts::planted_truth truth;
  fs::path dir;
  std::string inputs;
};

generated generate(std::int32_t ranks, std::int32_t steps, std::uint64_t seed) {
  ts::synthetic_options o;
  o.seed = seed;
  o.ranks = ranks;
  o.devices_per_rank = 1;
  o.steps = steps;
  o.kernels_per_step = 40;
  o.plant.memory_staircase = true;
  generated g;
  g.truth = ts::generate_synthetic_trace(o, g.table);
  g.dir = fs::temp_directory_path() /
          ("tracesweep_memory_" + std::to_string(::getpid()) + "_" + std::to_string(seed));
  fs::create_directories(g.dir);
  for (auto const& f : ts::write_kineto_json(g.table, (g.dir / "trace_").string(), false))
    g.inputs += quote(f) + " ";
  return g;
}

simdjson::dom::element parse(simdjson::dom::parser& parser, std::string const& json) {
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json.substr(0, 200);
  return doc;
}

std::int64_t i64(simdjson::dom::element e) {
  return std::int64_t(e);
}

using finding = std::tuple<std::int64_t, std::int64_t, std::string, std::int64_t, std::int64_t,
                           std::int64_t, std::int64_t, std::int64_t>;

std::set<finding> memory_findings(simdjson::dom::element doc) {
  std::set<finding> out;
  for (auto m : doc["memory"].get_array())
    out.emplace(i64(m["rank"]), i64(m["device"]), std::string(std::string_view(m["kind"])),
                i64(m["start_ns"]), i64(m["end_ns"]), i64(m["peak_bytes"]),
                i64(m["growth_bytes_per_step"]), i64(m["steps"]));
  return out;
}

/// The truth, its times less `shift` (nsys: the session start the writer subtracts).
std::set<finding> planted(ts::planted_truth const& truth, std::int64_t shift = 0) {
  std::set<finding> out;
  for (auto const& m : truth.memory)
    out.emplace(m.rank, m.device, "staircase", m.start_ns - shift, m.end_ns - shift, m.peak_bytes,
                m.growth_bytes_per_step, m.steps);
  return out;
}

/// Peak allocated per (rank, device, step) replayed from the generated events: the last total
/// before each ProfilerStep window and every total inside it (windows: per rank and name, the
/// earliest start to the latest end).
std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> replayed_peaks(
    ts::event_table const& t) {
  std::map<std::pair<std::int32_t, std::string>, std::pair<std::int64_t, std::int64_t>> windows;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != ts::event_kind::profiler_step) continue;
    auto [it, fresh] = windows.try_emplace({t.rank[i], std::string(t.strings().at(t.name[i]))},
                                           t.start_ns[i], t.end_ns[i]);
    if (!fresh)
      it->second = {std::min(it->second.first, t.start_ns[i]),
                    std::max(it->second.second, t.end_ns[i])};
  }
  std::map<std::int32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> by_rank;
  for (auto const& [key, w] : windows) by_rank[key.first].push_back(w);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> out;
  auto const& m = t.memory;
  for (auto& [rank, list] : by_rank) {
    std::sort(list.begin(), list.end());
    for (std::size_t k = 0; k < list.size(); ++k) {
      std::map<std::int32_t, std::int64_t> peak, last_before;
      for (std::size_t i = 0; i < m.size(); ++i) {  // the generator writes in time order
        if (m.rank[i] != rank) continue;
        if (m.time_ns[i] < list[k].first) last_before[m.device[i]] = m.allocated[i];
        if (m.time_ns[i] >= list[k].first && m.time_ns[i] < list[k].second)
          peak[m.device[i]] = std::max(peak[m.device[i]], m.allocated[i]);
      }
      for (auto const& [device, p] : peak)
        out[{rank, device, static_cast<std::int64_t>(k)}] =
            std::max(p, last_before.count(device) ? last_before[device] : 0);
    }
  }
  return out;
}

TEST(DiagnoseMemory, FindsExactlyThePlantedStaircaseInKineto) {
  auto const g = generate(3, 8, 5);
  ASSERT_EQ(g.truth.memory.size(), 1u);
  EXPECT_EQ(g.truth.memory[0].growth_bytes_per_step, std::int64_t{64} << 20);
  auto const r = run_cli("diagnose --format json --top 0 " + g.inputs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parse(parser, r.out);
  EXPECT_EQ(memory_findings(doc), planted(g.truth));

  // The per-step peaks it reports, replayed: the control devices are flat, the staircase
  // device climbs 64 MiB a step.
  auto const expected = replayed_peaks(g.table);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> reported;
  for (auto s : doc["memory_steps"].get_array())
    reported[{i64(s["rank"]), i64(s["device"]), i64(s["step"])}] = i64(s["peak_bytes"]);
  EXPECT_EQ(reported, expected);
  EXPECT_EQ(reported.size(), 3u * 8u);
  for (auto const& [key, peak] : reported) {
    auto const [rank, device, step] = key;
    auto const gib = std::int64_t{1} << 30, act = std::int64_t{256} << 20;
    EXPECT_EQ(peak, gib + act + (rank == 0 ? (step + 1) * (std::int64_t{64} << 20) : 0));
  }
  EXPECT_GT(doc["memory_timeline"].get_array().size(), 3u);
  fs::remove_all(g.dir);
}

TEST(DiagnoseMemory, FindsExactlyThePlantedStaircaseInNsys) {
  auto const g = generate(3, 7, 9);
  ASSERT_EQ(g.truth.memory.size(), 1u);
  auto const file = g.dir / "trace.sqlite";
  ts::write_nsys_sqlite(g.table, file.string());
  auto const shift = *std::min_element(g.table.start_ns.begin(), g.table.start_ns.end());
  auto const r = run_cli("diagnose --format json --top 0 " + quote(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parse(parser, r.out);
  EXPECT_EQ(memory_findings(doc), planted(g.truth, shift));
  // The same per-step peaks as the events replayed (the running totals from 0 equal the
  // generator's totals, which start at 0 too).
  auto const expected = replayed_peaks(g.table);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::int64_t> reported;
  for (auto s : doc["memory_steps"].get_array())
    reported[{i64(s["rank"]), i64(s["device"]), i64(s["step"])}] = i64(s["peak_bytes"]);
  EXPECT_EQ(reported, expected);
  fs::remove_all(g.dir);
}

TEST(DiagnoseMemory, ThresholdAndRunLengthAreHonoured) {
  auto const g = generate(2, 8, 6);
  simdjson::dom::parser parser;
  // Growth is exactly 64 MiB: "more than 64 MiB" finds nothing; "more than 64 MiB − 1" does.
  auto const at = run_cli("diagnose --format json --memory-growth 67108864 " + g.inputs);
  ASSERT_EQ(at.exit_code, 0) << at.err;
  EXPECT_TRUE(memory_findings(parse(parser, at.out)).empty());
  auto const below = run_cli("diagnose --format json --memory-growth 67108863 " + g.inputs);
  EXPECT_EQ(memory_findings(parse(parser, below.out)), planted(g.truth));
  // 8 steps give 7 increases: a run of 8 is asked in vain, of 7 found.
  auto const longer = run_cli("diagnose --format json --memory-steps 8 " + g.inputs);
  EXPECT_TRUE(memory_findings(parse(parser, longer.out)).empty());
  auto const exact = run_cli("diagnose --format json --memory-steps 7 " + g.inputs);
  EXPECT_EQ(memory_findings(parse(parser, exact.out)), planted(g.truth));
  fs::remove_all(g.dir);
}

TEST(DiagnoseMemory, FourStepsAreTooFewAndNoMemoryMeansNoFinding) {
  auto const g = generate(2, 4, 7);
  EXPECT_TRUE(g.truth.memory.empty());  // 3 increases
  auto const r = run_cli("diagnose --format json " + g.inputs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parse(parser, r.out);
  EXPECT_TRUE(memory_findings(doc).empty());
  EXPECT_EQ(doc["memory_steps"].get_array().size(), 2u * 4u);
  fs::remove_all(g.dir);
}

TEST(DiagnoseMemory, OverviewMemoryTableAgreesWithTheEvents) {
  auto const g = generate(2, 6, 8);
  auto const r = run_cli("overview --format json --table memory " + g.inputs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parse(parser, r.out);
  // Peaks per (rank, device) from the events.
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, std::int64_t>> peaks;
  auto const& m = g.table.memory;
  for (std::size_t i = 0; i < m.size(); ++i) {
    auto& p = peaks[{m.rank[i], m.device[i]}];
    p = {std::max(p.first, m.allocated[i]), std::max(p.second, m.reserved[i])};
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, std::int64_t>> shown;
  for (auto d : doc["memory"].get_array())
    shown[{i64(d["rank"]), i64(d["device"])}] = {i64(d["peak_allocated_bytes"]),
                                                 i64(d["peak_reserved_bytes"])};
  EXPECT_EQ(shown, peaks);
  // Every event is charged to exactly one op row (or to "(outside ops)"): the sums over the
  // rows of each (rank, device) equal the events' sums.
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, std::int64_t>> sums,
      shown_sums;
  for (std::size_t i = 0; i < m.size(); ++i) {
    auto& s = sums[{m.rank[i], m.device[i]}];
    (m.bytes[i] > 0 ? s.first : s.second) += m.bytes[i] > 0 ? m.bytes[i] : -m.bytes[i];
  }
  for (auto o : doc["memory_ops"].get_array()) {
    auto& s = shown_sums[{i64(o["rank"]), i64(o["device"])}];
    s.first += i64(o["allocated_bytes"]);
    s.second += i64(o["freed_bytes"]);
    EXPECT_EQ(i64(o["increase_bytes"]), i64(o["allocated_bytes"]) - i64(o["freed_bytes"]));
  }
  EXPECT_EQ(shown_sums, sums);
  fs::remove_all(g.dir);
}

}  // namespace diagnose_memory_test
