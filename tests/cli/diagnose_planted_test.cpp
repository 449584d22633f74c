// SPDX-License-Identifier: Apache-2.0
// diagnose finds exactly what the generator planted: each pattern alone and all together, in nsys
// SQLite and Kineto JSON, at several sizes; and nothing on a clean trace. The trace is made in
// process (for its ground truth and, for nsys, the session start its times are shifted by),
// written by the format's writer and diagnosed through the command line.
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

namespace diagnose_planted_test {

struct shape {
  std::int32_t ranks, devices, steps, kernels;
};

struct diagnosed {
  ts::planted_truth truth;
  std::int64_t shift = 0;  ///< subtracted from truth times (nsys: the session start)
  std::string json;
};

diagnosed diagnose(shape const& s, ts::planted_patterns plant, bool nsys, std::uint64_t seed) {
  ts::synthetic_options o;
  o.seed = seed;
  o.ranks = s.ranks;
  o.devices_per_rank = s.devices;
  o.steps = s.steps;
  o.kernels_per_step = s.kernels;
  o.plant = plant;
  ts::event_table table;
  diagnosed d;
  d.truth = ts::generate_synthetic_trace(o, table);
  auto const dir = fs::temp_directory_path() / ("tracesweep_planted_" + std::to_string(::getpid()) +
                                                "_" + std::to_string(seed));
  fs::create_directories(dir);
  std::string inputs;
  if (nsys) {
    auto const file = dir / "trace.sqlite";
    ts::write_nsys_sqlite(table, file.string());
    inputs = quote(file);
    d.shift = *std::min_element(table.start_ns.begin(), table.start_ns.end());
  } else {
    for (auto const& f : ts::write_kineto_json(table, (dir / "trace_").string(), false))
      inputs += quote(f) + " ";
  }
  auto const r = run_cli("diagnose --format json --top 0 " + inputs);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  d.json = r.out;
  fs::remove_all(dir);
  return d;
}

using gap_key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>;

void expect_exactly_planted(diagnosed const& d, std::string const& where) {
  SCOPED_TRACE(where);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(d.json).get(doc), simdjson::SUCCESS);
  auto const& truth = d.truth;
  auto i64 = [](simdjson::dom::element e) { return std::int64_t(e); };
  auto str = [](simdjson::dom::element e) { return std::string(std::string_view(e)); };

  std::set<gap_key> gaps, planted_gaps;
  for (auto g : doc["gaps"].get_array())
    gaps.emplace(i64(g["rank"]), i64(g["device"]), i64(g["start_ns"]), i64(g["end_ns"]),
                 str(g["cause"]));
  for (auto const& g : truth.gaps)
    planted_gaps.emplace(g.rank, g.device, g.start_ns - d.shift, g.end_ns - d.shift, g.cause);
  EXPECT_EQ(gaps, planted_gaps);

  // Data-loader gaps every step: one comb per device, of every such gap, with its period.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::int64_t>> loader_starts;
  for (auto const& g : truth.gaps)
    if (g.cause == "data_loading") loader_starts[{g.rank, g.device}].push_back(g.start_ns);
  std::set<std::pair<std::int64_t, std::int64_t>> combs;
  for (auto p : doc["periodic_gaps"].get_array()) {
    std::pair<std::int64_t, std::int64_t> const k{i64(p["rank"]), i64(p["device"])};
    EXPECT_EQ(str(p["cause"]), "data_loading");
    ASSERT_TRUE(loader_starts.count(k));
    auto const& starts = loader_starts[k];
    EXPECT_EQ(i64(p["count"]), static_cast<std::int64_t>(starts.size()));
    std::int64_t lo = INT64_MAX, hi = 0;
    for (std::size_t i = 1; i < starts.size(); ++i)
      lo = std::min(lo, starts[i] - starts[i - 1]), hi = std::max(hi, starts[i] - starts[i - 1]);
    EXPECT_GE(i64(p["period_ns"]), lo);
    EXPECT_LE(i64(p["period_ns"]), hi);
    combs.insert(k);
  }
  std::set<std::pair<std::int64_t, std::int64_t>> planted_combs;
  for (auto const& [k, starts] : loader_starts)
    if (starts.size() >= 3) planted_combs.insert(k);
  EXPECT_EQ(combs, planted_combs);

  std::set<std::tuple<std::int64_t, std::int64_t, std::string, std::int64_t, std::int64_t>> tail,
      planted_tail;
  for (auto l : doc["long_tail"].get_array())
    tail.emplace(i64(l["rank"]), i64(l["device"]), str(l["name"]), i64(l["start_ns"]),
                 i64(l["duration_ns"]));
  for (auto const& l : truth.long_tail)
    planted_tail.emplace(l.rank, l.device, l.name, l.start_ns - d.shift, l.duration_ns);
  EXPECT_EQ(tail, planted_tail);

  using burst =
      std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>;
  std::set<burst> bursts, planted_bursts;
  for (auto b : doc["tiny_kernel_bursts"].get_array())
    bursts.emplace(i64(b["rank"]), i64(b["device"]), i64(b["start_ns"]), i64(b["end_ns"]),
                   i64(b["kernels"]), str(b["launched_by"]));
  for (auto const& b : truth.bursts)
    planted_bursts.emplace(b.rank, b.device, b.start_ns - d.shift, b.end_ns - d.shift, b.kernels,
                           b.launched_by);
  EXPECT_EQ(bursts, planted_bursts);

  using copies =
      std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string, std::int64_t, std::int64_t>;
  std::set<copies> small, planted_small;
  for (auto c : doc["small_copies"].get_array())
    small.emplace(i64(c["rank"]), i64(c["device"]), i64(c["step"]), str(c["direction"]),
                  i64(c["copies"]), i64(c["bytes"]));
  for (auto const& c : truth.small_copies)
    planted_small.emplace(c.rank, c.device, c.step,
                          c.direction == "HtoD" ? "Host-to-Device" : "Device-to-Host", c.copies,
                          c.bytes);
  EXPECT_EQ(small, planted_small);

  std::set<std::int64_t> stragglers,
      planted_stragglers(truth.stragglers.begin(), truth.stragglers.end());
  for (auto s : doc["stragglers"].get_array()) stragglers.insert(i64(s["rank"]));
  EXPECT_EQ(stragglers, planted_stragglers);
}

ts::planted_patterns all_patterns(std::int32_t ranks) {
  ts::planted_patterns p;
  p.data_loader_gaps = p.sync_gap = p.long_tail = p.tiny_burst = p.small_copies = true;
  p.straggler_rank = ranks - 1;
  return p;
}

std::string label(shape const& s, bool nsys) {
  return std::string(nsys ? "nsys " : "kineto ") + std::to_string(s.ranks) + "x" +
         std::to_string(s.devices) + " ranks/devices, " + std::to_string(s.steps) + " steps x " +
         std::to_string(s.kernels) + " kernels";
}

shape const shapes[] = {{4, 1, 6, 300}, {2, 2, 8, 120}, {3, 1, 5, 60}};

TEST(DiagnosePlanted, AllPatternsInBothFormatsAtSeveralSizes) {
  std::uint64_t seed = 11;
  for (auto const& s : shapes)
    for (bool const nsys : {true, false})
      expect_exactly_planted(diagnose(s, all_patterns(s.ranks), nsys, ++seed), label(s, nsys));
}

TEST(DiagnosePlanted, EachPatternAlone) {
  shape const s{3, 1, 5, 80};
  std::uint64_t seed = 40;
  for (int which = 0; which < 6; ++which) {
    ts::planted_patterns p;
    p.data_loader_gaps = which == 0;
    p.sync_gap = which == 1;
    p.long_tail = which == 2;
    p.tiny_burst = which == 3;
    p.small_copies = which == 4;
    if (which == 5) p.straggler_rank = 1;
    for (bool const nsys : {true, false})
      expect_exactly_planted(diagnose(s, p, nsys, ++seed),
                             label(s, nsys) + ", pattern " + std::to_string(which));
  }
}

TEST(DiagnosePlanted, CleanTracesHaveNoFinding) {
  std::uint64_t seed = 70;
  for (auto const& s : shapes)
    for (bool const nsys : {true, false}) {
      ts::planted_patterns p;
      p.clean = true;
      auto const d = diagnose(s, p, nsys, ++seed);
      SCOPED_TRACE(label(s, nsys));
      expect_exactly_planted(d, "clean");
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      ASSERT_EQ(parser.parse(d.json).get(doc), simdjson::SUCCESS);
      // The GPU is never idle for the host: busy throughout; where the all-reduces outlast the
      // compute they overlap, the verdict says communication.
      for (auto v : doc["verdicts"].get_array()) {
        std::string_view const verdict = v["verdict"];
        EXPECT_TRUE(verdict == "gpu_bound" || verdict == "communication_bound") << verdict;
        EXPECT_GE(double(v["busy_share"]), 0.95);
      }
    }
}

}  // namespace diagnose_planted_test
