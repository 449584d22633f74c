// SPDX-License-Identifier: Apache-2.0
// tracesweep diagnose from the command line: every real trace in every format without error and
// with a consistent JSON document, the same at one thread as at every CPU; bad input and bad
// options exit 2 or 1 with one line.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/run_cli.hpp"
#include "support/summary_compare.hpp"
#include "support/trace_paths.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;

namespace diagnose_cli_test {

std::size_t lines(std::string const& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// The JSON document's invariants: the lists are there, every *_ns an integer, idle by cause
/// never more than the window.
void check_document(std::string const& json, std::string const& where) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << where;
  for (auto key : {"verdicts", "gaps", "periodic_gaps", "long_tail", "tiny_kernel_bursts", "sync",
                   "memcpy", "small_copies", "ranks", "stragglers"}) {
    simdjson::dom::array a;
    EXPECT_EQ(doc[key].get(a), simdjson::SUCCESS) << where << " " << key;
  }
  for (simdjson::dom::object v : doc["verdicts"].get_array()) {
    std::int64_t const window =
        std::int64_t(v["window_end_ns"]) - std::int64_t(v["window_start_ns"]);
    std::int64_t idle = std::int64_t(v["idle_short_ns"]);
    for (auto [cause, ns] : simdjson::dom::object(v["idle_by_cause"])) idle += std::int64_t(ns);
    double const busy = double(v["busy_share"]);
    EXPECT_LE(idle, window) << where;
    EXPECT_GE(busy, 0.0) << where;
    EXPECT_LE(busy, 1.0) << where;
  }
  // Every *_ns field, at any depth, is an integer.
  std::function<void(simdjson::dom::element)> integers = [&](simdjson::dom::element e) {
    if (e.is_object()) {
      for (auto [key, value] : simdjson::dom::object(e)) {
        if (std::string_view(key).ends_with("_ns") && !value.is_null()) {
          EXPECT_TRUE(value.is_int64()) << where << ": " << key;
        }
        integers(value);
      }
    } else if (e.is_array()) {
      for (auto value : simdjson::dom::array(e)) integers(value);
    }
  };
  integers(doc);
  for (simdjson::dom::object g : doc["gaps"].get_array()) {
    EXPECT_EQ(std::int64_t(g["end_ns"]) - std::int64_t(g["start_ns"]),
              std::int64_t(g["duration_ns"]))
        << where;
    EXPECT_GE(std::int64_t(g["duration_ns"]), 100'000) << where;
  }
}

TEST(DiagnoseCli, EveryRealTraceInEveryFormat) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::size_t diagnosed = 0;
  for (auto const& path : tracesweep::test::trace_files(dir)) {
    auto const json = run_cli("diagnose --format json " + quote(path));
    if (json.exit_code == 2 && lines(json.err) == 1) continue;  // a file no reader takes
    ASSERT_EQ(json.exit_code, 0) << path << ": " << json.err;
    check_document(json.out, path.string());
    // The detectors run at once on the threads --threads gives: one thread, the same document.
    auto const one = run_cli("--threads 1 diagnose --format json " + quote(path));
    EXPECT_EQ(one.exit_code, 0) << path << ": " << one.err;
    EXPECT_EQ(one.out, json.out) << path << ": --threads 1 differs";
    for (auto const* format : {"text", "csv"}) {
      auto const r = run_cli(std::string("diagnose --format ") + format + " " + quote(path));
      EXPECT_EQ(r.exit_code, 0) << path << " " << format << ": " << r.err;
      EXPECT_FALSE(r.out.empty()) << path << " " << format;
    }
    ++diagnosed;
  }
  EXPECT_GT(diagnosed, 20u) << "too few traces were diagnosed from " << dir;
}

// docs/cli.md walks through one diagnosis of a real trace: its command still prints what it shows
// (lines cut with "..." there are compared up to the cut).
TEST(DiagnoseCli, ReadmeWalkthroughIsWhatTheCommandPrints) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::ifstream in(fs::path(TRACESWEEP_SOURCE_DIR) / "docs/cli.md");
  std::string line, command;
  std::vector<std::string> shown;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.starts_with("$ tracesweep diagnose ../shared/traces/")) {
      command = line.substr(std::string("$ tracesweep ").size());
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.starts_with("```")) break;
    if (!line.empty() && line != "  …") shown.push_back(line);
  }
  ASSERT_FALSE(command.empty()) << "docs/cli.md has no diagnose walkthrough";
  ASSERT_GT(shown.size(), 10u);
  auto const trace = dir / command.substr(command.find("../shared/traces/") + 17);
  auto const r = run_cli("diagnose " + quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream out(r.out);
  std::vector<std::string> printed;
  while (std::getline(out, line)) printed.push_back(line);
  for (auto const& s : shown) {
    bool const cut = s.ends_with("...");
    auto const want = cut ? s.substr(0, s.size() - 3) : s;
    bool const found = std::any_of(printed.begin(), printed.end(), [&](std::string const& p) {
      return cut ? p.starts_with(want) : p == want;
    });
    EXPECT_TRUE(found) << "docs/cli.md shows a line the command no longer prints:\n" << s;
  }
}

TEST(DiagnoseCli, BadInputAndBadOptionsSayOneLine) {
  auto const dir =
      fs::temp_directory_path() / ("tracesweep_diagnose_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto const sample = fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite";
  auto const garbage = dir / "garbage.json", empty = dir / "empty.json", cut = dir / "cut.sqlite";
  std::ofstream(garbage) << "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ";
  std::ofstream{empty};
  {
    std::ifstream in(sample, std::ios::binary);
    std::string bytes(4096, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::ofstream(cut, std::ios::binary) << bytes;
  }
  for (auto const& bad : {garbage, empty, cut, dir / "missing.sqlite"}) {
    auto const r = run_cli("diagnose " + quote(bad));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(bad.filename().string()), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  for (auto const* options : {"--min-gap -5", "--busy-threshold 2", "--step-pattern '('",
                              "--data-loader-pattern '[z-a]'", "--format yaml", "--top x"}) {
    auto const r = run_cli(std::string("diagnose ") + options + " " + quote(sample));
    EXPECT_EQ(r.exit_code, 1) << options << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << options;
  }
  auto const flag = run_cli("diagnose --step-pattern '(' " + quote(sample));
  EXPECT_NE(flag.err.find("--step-pattern"), std::string::npos) << flag.err;
  fs::remove_all(dir);
}

}  // namespace diagnose_cli_test
