// SPDX-License-Identifier: Apache-2.0
// diagnose --format perfetto: a Chrome-trace overlay on the input's clock. Read back with the
// project's own Chrome-trace reader, its gap spans equal diagnose's JSON gaps to the nanosecond
// (start, end, cause); each sits on its rank's process, on the track named for its device; the
// long-tail instances, bursts and steps are all there. On a planted job and a real Kineto trace.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace perfetto_overlay_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;
using span = std::tuple<std::int64_t, std::int64_t, std::string>;

struct scratch {
  fs::path dir = fs::temp_directory_path() / ("ts_overlay_" + std::to_string(::getpid()));
  scratch() { fs::create_directories(dir); }
  ~scratch() { fs::remove_all(dir); }
};

/// Checks the overlay of `input` against its diagnose JSON.
void check_overlay(fs::path const& input, fs::path const& overlay) {
  auto const json = run_cli("diagnose --format json " + quote(input));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto const written =
      run_cli("-o " + quote(overlay) + " diagnose --format perfetto " + quote(input));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  simdjson::dom::parser parser;
  auto const d = parser.parse(json.out);
  std::multiset<span> want;
  std::multiset<std::tuple<std::int64_t, std::string>> want_tracks;  // (rank, track name)
  for (auto g : d["gaps"].get_array()) {
    want.emplace(std::int64_t(g["start_ns"]), std::int64_t(g["end_ns"]),
                 std::string(std::string_view(g["cause"])));
    want_tracks.emplace(std::int64_t(g["rank"]),
                        "GPU " + std::to_string(std::int64_t(g["device"])) + " idle gaps");
  }
  ASSERT_FALSE(want.empty());
  // The project's reader, exact decimal microseconds back to nanoseconds.
  tracesweep::event_table t;
  tracesweep::read_input(overlay.string(), t, {});
  std::multiset<span> got;
  std::map<std::string, std::size_t> per_category;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto const category = std::string(t.strings().at(t.category[i]));
    ++per_category[category];
    if (category == "tracesweep.gap")
      got.emplace(t.start_ns[i], t.end_ns[i], std::string(t.strings().at(t.name[i])));
  }
  EXPECT_EQ(got, want);
  // Tracks: each gap on its rank's process, on its device's named track.
  simdjson::dom::parser raw;
  auto const o = raw.load(overlay.string());
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> names;
  for (auto e : o["traceEvents"].get_array())
    if (std::string_view(e["ph"]) == "M" && std::string_view(e["name"]) == "thread_name")
      names[{std::int64_t(e["pid"]), std::int64_t(e["tid"])}] = std::string_view(e["args"]["name"]);
  std::multiset<std::tuple<std::int64_t, std::string>> tracks;
  for (auto e : o["traceEvents"].get_array())
    if (std::string_view(e["ph"]) == "X" && std::string_view(e["cat"]) == "tracesweep.gap") {
      auto const pid = std::int64_t(e["pid"]);
      tracks.emplace(pid, names[{pid, std::int64_t(e["tid"])}]);
    }
  EXPECT_EQ(tracks, want_tracks);
  // The other findings, one span each.
  std::size_t steps = 0;
  for (auto v : d["verdicts"].get_array()) steps += !v["step"].is_null();
  EXPECT_EQ(per_category["tracesweep.step"], steps);
  EXPECT_EQ(per_category["tracesweep.long_tail"], d["long_tail"].get_array().size());
  EXPECT_EQ(per_category["tracesweep.burst"], d["tiny_kernel_bursts"].get_array().size());
}

TEST(PerfettoOverlay, PlantedJobGapsEqualDiagnoseJson) {
  scratch s;
  auto const job = s.dir / "job.sqlite";
  ASSERT_EQ(run_cli("generate --ranks 2 --plant all -o " + quote(job)).exit_code, 0);
  check_overlay(job, s.dir / "overlay.json");
}

TEST(PerfettoOverlay, RealKinetoTraceGapsEqualDiagnoseJson) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  scratch s;
  check_overlay(traces / "kineto" / "hta_nccl_allreduce_a100" / "nccl_data.json.gz",
                s.dir / "overlay.json");
}

}  // namespace perfetto_overlay_test
