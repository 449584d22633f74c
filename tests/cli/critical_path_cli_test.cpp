// SPDX-License-Identifier: Apache-2.0
// tracesweep critical-path end to end: the JSON document's tables agree with one another (shares
// add up, the edges' weights make the length, the payoffs save no more than the event's time, a
// what-if that halves everything shortens the path); the perfetto overlay is a trace; bad input
// and bad options say one line with the usual exit codes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

namespace critical_path_cli_test {

std::size_t line_count(std::string const& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(CriticalPathCli, TheTablesOfOneDocumentAgree) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const trace = dir / "kineto/hta_critical_path_alexnet";
  auto const r = run_cli("critical-path --format json --what-if '.*=0.5' " + quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  std::map<std::int64_t, std::int64_t> total, edges, weights, bounds;
  std::map<std::int64_t, double> shares;
  for (simdjson::dom::object p : doc["critical_path"].get_array()) {
    total[int64_t(p["instance"])] = int64_t(p["total_ns"]);
    edges[int64_t(p["instance"])] = int64_t(p["edges"]);
  }
  ASSERT_FALSE(total.empty());
  for (simdjson::dom::object s : doc["critical_path_summary"].get_array()) {
    bounds[int64_t(s["instance"])] += int64_t(s["duration_ns"]);
    shares[int64_t(s["instance"])] += double(s["share"]);
  }
  std::map<std::int64_t, std::int64_t> edge_count;
  for (simdjson::dom::object e : doc["critical_path_edges"].get_array()) {
    weights[int64_t(e["instance"])] += int64_t(e["weight_ns"]);
    ++edge_count[int64_t(e["instance"])];
  }
  for (auto const& [instance, length] : total) {
    SCOPED_TRACE("instance " + std::to_string(instance));
    EXPECT_EQ(weights[instance], length);
    EXPECT_EQ(bounds[instance], length);
    EXPECT_EQ(edge_count[instance], edges[instance]);
    if (length > 0) {
      EXPECT_NEAR(shares[instance], 1.0, 1e-9);
    }
  }
  for (simdjson::dom::object p : doc["critical_path_payoff"].get_array()) {
    EXPECT_GE(int64_t(p["saved_ns"]), 0);
    EXPECT_LE(int64_t(p["saved_ns"]), int64_t(p["time_ns"]));
  }
  std::size_t what_ifs = 0;
  for (simdjson::dom::object w : doc["critical_path_what_if"].get_array()) {
    ++what_ifs;
    auto const before = int64_t(w["before_ns"]), after = int64_t(w["after_ns"]);
    EXPECT_EQ(before, total[int64_t(w["instance"])]);
    EXPECT_LT(after, before);  // every event at half its time, the delays as they were: at least
    EXPECT_GE(after, before / 2 - edges[int64_t(w["instance"])]);  // half (1 ns a rounded edge)
    EXPECT_EQ(int64_t(w["saved_ns"]), before - after);
  }
  EXPECT_EQ(what_ifs, total.size());
}

TEST(CriticalPathCli, ThePerfettoOverlayIsATraceOfThePath) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const trace = dir / "kineto/hta_critical_path_cuda_event_sync";
  auto const json = run_cli("critical-path --format json " + quote(trace));
  auto const overlay = run_cli("critical-path --format perfetto " + quote(trace));
  ASSERT_EQ(overlay.exit_code, 0) << overlay.err;
  simdjson::dom::parser p1, p2;
  simdjson::dom::element doc, trace_doc;
  ASSERT_EQ(p1.parse(json.out).get(doc), simdjson::SUCCESS);
  ASSERT_EQ(p2.parse(overlay.out).get(trace_doc), simdjson::SUCCESS);
  std::size_t slices = 0;
  for (simdjson::dom::object e : trace_doc["traceEvents"].get_array())
    if (std::string_view(e["ph"]) == "X") ++slices;
  auto const edges = simdjson::dom::array(doc["critical_path_edges"]).size();
  auto const events = simdjson::dom::array(doc["critical_path_events"]).size();
  EXPECT_EQ(slices, edges + events);  // one slice per edge of the path and per event on it
}

// docs/cli.md shows one critical path of a real trace: its command still prints those lines.
TEST(CriticalPathCli, TheDocumentedExampleIsWhatTheCommandPrints) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::ifstream in(fs::path(TRACESWEEP_SOURCE_DIR) / "docs/cli.md");
  std::string line, args;
  std::vector<std::string> shown;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string const prompt = "$ tracesweep critical-path ";
    if (!inside && line.starts_with(prompt)) {
      args = line.substr(prompt.size());
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.starts_with("```")) break;
    if (!line.empty() && line != "  …") shown.push_back(line);
  }
  ASSERT_GT(shown.size(), 5u) << "docs/cli.md shows no critical path";
  auto const at = args.find("../shared/traces/");
  ASSERT_NE(at, std::string::npos);
  auto const trace = dir / args.substr(at + 17);
  auto const r = run_cli("critical-path " + args.substr(0, at) + quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto const& s : shown)
    EXPECT_NE(r.out.find(s + "\n"), std::string::npos)
        << "docs/cli.md shows a line the command no longer prints:\n"
        << s;
}

TEST(CriticalPathCli, BadInputAndBadOptionsSayOneLine) {
  auto const dir =
      fs::temp_directory_path() / ("tracesweep_critical_path_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto const sample = fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite";
  auto const garbage = dir / "garbage.json", empty = dir / "empty.json";
  std::ofstream(garbage) << "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ";
  std::ofstream{empty};
  for (auto const& bad : {garbage, empty, dir / "missing.sqlite"}) {
    auto const r = run_cli("critical-path " + quote(bad));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(bad.filename().string()), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  for (auto const* options :
       {"--what-if gemm", "--what-if 'gemm=-1'", "--what-if 'gemm=x'", "--what-if '(=2'",
        "--instance -1", "--format yaml", "--table nothing", "--step-pattern '('"}) {
    auto const r = run_cli(std::string("critical-path ") + options + " " + quote(sample));
    EXPECT_EQ(r.exit_code, 1) << options << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1u) << options << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << options;
  }
  auto const text = run_cli("critical-path " + quote(sample));
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Critical path by bound type"), std::string::npos) << text.out;
  fs::remove_all(dir);
}

}  // namespace critical_path_cli_test
