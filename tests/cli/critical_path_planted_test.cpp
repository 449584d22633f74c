// SPDX-License-Identifier: Apache-2.0
// generate --plant critical-path, read back as Kineto JSON and as an nsys export: every step's
// critical path, its length, its bound types, its payoffs and a what-if exactly as derived by hand
// from the planted chain (critical_path_job.hpp), through the real writers and readers. Without
// k2 (450 µs on the path) the host's 610 µs take over: only 250 µs are saved.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

namespace critical_path_planted_test {

struct edge {
  std::string from, to, type;
  std::int64_t weight_us;
  std::string event;
};

/// The path of every step, as derived in critical_path_job.hpp's terms (µs from the step start).
/// Kineto: each launching call inside an aten op 1 µs either side (aten::mm, aten::item), which
/// takes 1 µs of A's and of C's 10 µs on the path. nsys: A, B, C are NVTX ranges (the step's, a
/// window, is no operator), the calls bare.
std::vector<edge> expected_path(bool nsys) {
  if (nsys)
    return {{"aten::A", "cudaLaunchKernel", "operator", 10, "aten::A"},
            {"cudaLaunchKernel", "k1", "kernel_launch_delay", 20, ""},
            {"k1", "k1", "operator", 370, "k1"},
            {"k1", "k2", "kernel_kernel_delay", 0, "k1"},
            {"k2", "k2", "operator", 450, "k2"},
            {"k2", "cudaDeviceSynchronize", "sync_dependency", 0, ""},
            {"cudaDeviceSynchronize", "aten::C", "operator", 10, "aten::C"}};
  return {{"aten::A", "aten::mm", "operator", 9, "aten::A"},
          {"aten::mm", "cudaLaunchKernel", "operator", 1, "aten::mm"},
          {"cudaLaunchKernel", "k1", "kernel_launch_delay", 20, ""},
          {"k1", "k1", "operator", 370, "k1"},
          {"k1", "k2", "kernel_kernel_delay", 0, "k1"},
          {"k2", "k2", "operator", 450, "k2"},
          {"k2", "cudaDeviceSynchronize", "sync_dependency", 0, ""},
          {"cudaDeviceSynchronize", "aten::item", "operator", 1, "aten::item"},
          {"aten::item", "aten::C", "operator", 9, "aten::C"}};
}

/// A step's name without its number, so that every step compares alike.
std::string unnumbered(std::string_view name) {
  return std::string(name.starts_with("ProfilerStep#") ? "ProfilerStep#" : name);
}

void check_job(std::string const& inputs, bool nsys) {
  auto const r = run_cli("critical-path --format json --what-if '^k2$=0.5' " + inputs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array paths = doc["critical_path"];
  ASSERT_EQ(paths.size(), 6u);  // 2 ranks × 3 steps
  for (simdjson::dom::object p : paths) {
    EXPECT_EQ(int64_t(p["total_ns"]), 860'000);
    EXPECT_EQ(int64_t(p["edges"]), nsys ? 7 : 9);
    EXPECT_TRUE(std::string_view(p["window"]).starts_with("ProfilerStep#"));
  }
  // The path of each step, edge by edge.
  auto const want = expected_path(nsys);
  std::map<std::pair<int64_t, int64_t>, std::vector<edge>> got;
  for (simdjson::dom::object e : doc["critical_path_edges"].get_array()) {
    auto const event = e["event"];
    got[{int64_t(e["rank"]), int64_t(e["instance"])}].push_back(
        {unnumbered(e["from"]), unnumbered(e["to"]), std::string(std::string_view(e["type"])),
         int64_t(e["weight_ns"]), event.is_null() ? "" : unnumbered(event)});
  }
  ASSERT_EQ(got.size(), 6u);
  for (auto const& [window, edges] : got) {
    SCOPED_TRACE("rank " + std::to_string(window.first) + " step " + std::to_string(window.second));
    ASSERT_EQ(edges.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(edges[i].from, want[i].from) << i;
      EXPECT_EQ(edges[i].to, want[i].to) << i;
      EXPECT_EQ(edges[i].type, want[i].type) << i;
      EXPECT_EQ(edges[i].weight_us, want[i].weight_us * 1000) << i;
      EXPECT_EQ(edges[i].event, want[i].event) << i;
    }
  }
  // By bound type: the host's 20 µs, 20 µs of launch delay, 820 of kernels, a kernel-kernel
  // delay of 0.
  std::map<std::string, std::int64_t> const want_bounds{{"cpu_bound", 20'000},
                                                        {"gpu_compute_bound", 820'000},
                                                        {"gpu_kernel_launch_overhead", 20'000},
                                                        {"gpu_kernel_kernel_overhead", 0},
                                                        {"dependency", 0}};
  std::map<std::pair<int64_t, int64_t>, std::map<std::string, std::int64_t>> bounds;
  for (simdjson::dom::object s : doc["critical_path_summary"].get_array())
    bounds[{int64_t(s["rank"]), int64_t(s["instance"])}]
          [std::string(std::string_view(s["bound_by"]))] = int64_t(s["duration_ns"]);
  ASSERT_EQ(bounds.size(), 6u);
  for (auto const& [window, b] : bounds) EXPECT_EQ(b, want_bounds);
  // Payoffs: without k2 the host (610 µs) takes over, 250 saved, not 450; without k1 the chain
  // through the second launch (110 + 450 + 10 = 570) is still shorter than the host's 610.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> want_payoff{
      {"k2", {450'000, 250'000}}, {"k1", {370'000, 250'000}}};
  if (nsys) {
    want_payoff["aten::A"] = want_payoff["aten::C"] = {10'000, 10'000};
  } else {
    want_payoff["aten::A"] = want_payoff["aten::C"] = {9'000, 9'000};
    want_payoff["aten::mm"] = want_payoff["aten::item"] = {1'000, 1'000};
  }
  std::map<std::pair<int64_t, int64_t>, std::map<std::string, std::pair<int64_t, int64_t>>> payoff;
  for (simdjson::dom::object p : doc["critical_path_payoff"].get_array())
    payoff[{int64_t(p["rank"]), int64_t(p["instance"])}][unnumbered(p["name"])] = {
        int64_t(p["time_ns"]), int64_t(p["saved_ns"])};
  ASSERT_EQ(payoff.size(), 6u);
  for (auto const& [window, p] : payoff) EXPECT_EQ(p, want_payoff);
  // By name, every instance at no time: the same here, each name once on a path (aten::mm's
  // second instance, around k2's launch, is off the path and saves nothing more).
  std::map<std::pair<int64_t, int64_t>, std::map<std::string, std::pair<int64_t, int64_t>>> names;
  for (simdjson::dom::object p : doc["critical_path_name_payoff"].get_array()) {
    EXPECT_EQ(int64_t(p["instances"]), 1);
    names[{int64_t(p["rank"]), int64_t(p["instance"])}][unnumbered(p["name"])] = {
        int64_t(p["time_ns"]), int64_t(p["saved_ns"])};
  }
  ASSERT_EQ(names.size(), 6u);
  for (auto const& [window, p] : names) EXPECT_EQ(p, want_payoff);
  // k2 at half its time: 225 µs shorter, still longer than the host's 610 µs.
  std::size_t what_ifs = 0;
  for (simdjson::dom::object w : doc["critical_path_what_if"].get_array()) {
    ++what_ifs;
    EXPECT_EQ(int64_t(w["after_ns"]), 635'000);
  }
  EXPECT_EQ(what_ifs, 6u);
}

TEST(CriticalPathPlanted, TheKnownChainComesBackFromKinetoJson) {
  tracesweep::test::scratch dir("critical_path_planted_kineto");
  auto const g = run_cli(
      "generate --plant critical-path --ranks 2 --steps 3 --format kineto-json "
      "-o " +
      quote(dir.file("job-")));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  check_job(quote(dir.file("job-rank-0.json")) + " " + quote(dir.file("job-rank-1.json")), false);
}

TEST(CriticalPathPlanted, TheKnownChainComesBackFromAnNsysExport) {
  tracesweep::test::scratch dir("critical_path_planted_nsys");
  auto const g = run_cli("generate --plant critical-path --ranks 2 --steps 3 -o " +
                         quote(dir.file("job.sqlite")));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  check_job(quote(dir.file("job.sqlite")), true);
}

TEST(CriticalPathPlanted, ItIsAJobOfItsOwn) {
  tracesweep::test::scratch dir("critical_path_planted_alone");
  for (auto const* options :
       {"--plant critical-path,sync", "--plant critical-path --truth t.json"}) {
    auto const r =
        run_cli(std::string("generate ") + options + " -o " + quote(dir.file("job.sqlite")));
    EXPECT_EQ(r.exit_code, 1) << options << ": " << r.err;
  }
}

}  // namespace critical_path_planted_test
