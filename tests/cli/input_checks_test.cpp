// SPDX-License-Identifier: Apache-2.0
// Checks on what the inputs claim, through the CLI, on real traces (issue 27, items 12, 13, 15
// and 16): duplicated events dropped and reported once, two inputs claiming one rank refused
// whatever their formats (--ranks-from tells them apart), clocks decades apart between ranks
// warned about, and every pattern option's error naming that option.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <simdjson.h>
#include <sqlite3.h>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace input_checks_test {

namespace fs = std::filesystem;

/// The inflated text of a real .json.gz trace.
std::string inflated(fs::path const& gz) {
  auto const out = fs::temp_directory_path() / ("ts_inflated_" + std::to_string(::getpid()));
  EXPECT_EQ(std::system(("zcat " + quote(gz) + " > " + quote(out)).c_str()), 0);
  auto text = slurp(out);
  fs::remove(out);
  return text;
}

void write_text(fs::path const& p, std::string const& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// `text` with the first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, std::string const& from, std::string const& to) {
  auto const at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// The number of lines of `text`.
long lines(std::string const& text) {
  return std::count(text.begin(), text.end(), '\n');
}

/// Sums `field` over the summary JSON's `kernels` and returns it with the number of kernels.
std::pair<std::int64_t, std::int64_t> kernel_totals(std::string const& json) {
  simdjson::dom::parser parser;
  auto doc = parser.parse(json);
  EXPECT_EQ(doc.error(), simdjson::SUCCESS) << json.substr(0, 200);
  std::int64_t calls = 0, total = 0;
  simdjson::dom::array const kernels = doc["kernels"].get_array().value();
  for (auto k : kernels) {
    calls += k["calls"].get_int64().value();
    total += k["total_ns"].get_int64().value();
  }
  return {calls, total};
}

/// The ranks of the summary JSON's device rows, in order.
std::vector<std::int64_t> device_ranks(std::string const& json) {
  simdjson::dom::parser parser;
  auto doc = parser.parse(json);
  EXPECT_EQ(doc.error(), simdjson::SUCCESS) << json.substr(0, 200);
  std::vector<std::int64_t> ranks;
  simdjson::dom::array const devices = doc["devices"].get_array().value();
  for (auto d : devices) ranks.push_back(d["rank"].get_int64().value());
  return ranks;
}

fs::path nccl_trace(fs::path const& traces) {
  return traces / "kineto/hta_nccl_allreduce_a100/nccl_data.json.gz";
}

// 12. A real Kineto trace whose `traceEvents` hold every event twice: every duplicated kernel is
// dropped, the kernel counts and totals equal the original's, and one stderr line names the file
// and the count;
// --keep-duplicates keeps them (the counts double).
TEST(input_checks, duplicated_trace_events_are_dropped_and_reported) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const original = traces / "kineto/hta_trace_filter_2rank/sampled_rank-0.json.gz";
  auto const text = inflated(original);
  simdjson::dom::parser parser;
  auto const doc = parser.parse(text).value();
  auto const events = simdjson::minify(doc["traceEvents"].value());
  scratch dir("input_checks_dup");
  auto const twice = dir.file("twice.json");
  auto const doubled = events.substr(0, events.size() - 1) + "," + events.substr(1);
  write_text(twice, replaced(simdjson::minify(doc), events, doubled));

  auto const base = run_cli("summary --format json " + quote(original));
  ASSERT_EQ(base.exit_code, 0) << base.err;
  auto const r = run_cli("summary --format json " + quote(twice));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kernel_totals(r.out), kernel_totals(base.out));
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(twice.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("duplicate"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--keep-duplicates"), std::string::npos) << r.err;

  auto const kept = run_cli("summary --keep-duplicates --format json " + quote(twice));
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.err, "");
  auto const [calls, total] = kernel_totals(base.out);
  EXPECT_EQ(kernel_totals(kept.out), std::make_pair(2 * calls, 2 * total));
}

// 12. No real trace holds a duplicated event: none is reported, whatever the format.
TEST(input_checks, real_traces_have_no_duplicates) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const* sub : {"nsys", "kineto"})
    for (auto const& f : fs::recursive_directory_iterator(traces / sub)) {
      auto const name = f.path().filename().string();
      if (!name.ends_with(".sqlite") && !name.ends_with(".json.gz")) continue;
      auto const r = run_cli("stats --report cuda_api_sum " + quote(f.path()));
      EXPECT_EQ(r.err.find("duplicate"), std::string::npos) << f.path() << ": " << r.err;
    }
}

// 13. An nsys export whose launch environment names rank 0 and a real Kineto trace (rank 0)
// together: refused as two Kineto files claiming one rank are, exit 2 in one line naming both.
// An export without one (its processes numbered 0, 1, … by the reader) claims nothing: its
// ranks move past the claimed ones, in either order. --ranks-from order numbers the inputs'
// ranks in the order given, --ranks-from path takes each from its name.
TEST(input_checks, nsys_and_kineto_claiming_one_rank_are_refused) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const sample = fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite";
  auto const kineto = nccl_trace(traces);
  scratch folder("input_checks_claims");
  auto const claiming = folder.file("rank0.sqlite");
  ASSERT_EQ(
      run_cli("generate --ranks 1 --steps 2 --kernels-per-step 10 -o " + quote(claiming)).exit_code,
      0);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(claiming.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName "
                           "TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value "
                           "TEXT NOT NULL); INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (NULL, 'x', "
                           "'DeviceEnvironment', 0, 'HOME=/root;RANK=0;LOCAL_RANK=0')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto const r = run_cli("summary --format json " + quote(claiming) + " " + quote(kineto));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(kineto.string() + ": rank 0 is also claimed by " + claiming.string()),
            std::string::npos)
      << r.err;

  for (auto const& inputs :
       {quote(sample) + " " + quote(kineto), quote(kineto) + " " + quote(sample)}) {
    auto const both = run_cli("summary --format json " + inputs);
    ASSERT_EQ(both.exit_code, 0) << both.err;
    EXPECT_EQ(device_ranks(both.out), (std::vector<std::int64_t>{0, 1, 2})) << inputs;
  }

  auto const inputs = quote(sample) + " " + quote(kineto);
  auto const order = run_cli("summary --ranks-from order --format json " + inputs);
  ASSERT_EQ(order.exit_code, 0) << order.err;
  EXPECT_EQ(device_ranks(order.out), (std::vector<std::int64_t>{0, 1, 2}));

  scratch dir("input_checks_ranks");
  fs::create_symlink(traces / "nsys/dlprof/nsys_profile.sqlite", dir.file("rank-3.sqlite"));
  fs::create_symlink(kineto, dir.file("worker_0.json.gz"));
  auto const by_path =
      run_cli("summary --ranks-from path --format json " + quote(dir.file("rank-3.sqlite")) + " " +
              quote(dir.file("worker_0.json.gz")));
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  auto ranks = device_ranks(by_path.out);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  EXPECT_EQ(ranks, (std::vector<std::int64_t>{0, 3}));

  // A file of several ranks has no one rank in its name; a name without a number names none.
  auto const several = run_cli("summary --ranks-from path " + inputs);
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_EQ(lines(several.err), 1) << several.err;
  EXPECT_NE(several.err.find(sample.string()), std::string::npos) << several.err;
  auto const bad = run_cli("summary --ranks-from rank " + quote(kineto));
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("--ranks-from"), std::string::npos) << bad.err;
}

// 16. Two ranks of one job, one of them (the real trace without its baseTimeNanoseconds) with
// times relative to its start: one warning line names that input and the likely cause.
TEST(input_checks, clocks_decades_apart_are_warned_about) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const original = nccl_trace(traces);
  auto text = inflated(original);
  text = replaced(text, "\"baseTimeNanoseconds\"", "\"baseTimeNanosecondsRemoved\"");
  text = replaced(text, "\"rank\": 0, \"world_size\": 2", "\"rank\": 1, \"world_size\": 2");
  scratch dir("input_checks_clock");
  auto const relative = dir.file("rank1_without_base_time.json");
  write_text(relative, text);
  auto const r = run_cli("summary " + quote(original) + " " + quote(relative));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("tracesweep: warning: " + relative.string() + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("baseTimeNanoseconds"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("years"), std::string::npos) << r.err;

  auto const same_clock = run_cli("summary " + quote(original));
  EXPECT_EQ(same_clock.err, "");
}

// 15. Every pattern option of every command: a pattern RE2 refuses (a nested repetition) is a
// usage error naming that option, found before any input is read; --max-event-bytes 0 is a
// short line naming its option.
TEST(input_checks, pattern_errors_name_their_option) {
  std::string const bad = "'(a{100}){100}'";
  std::string const missing = quote(fs::temp_directory_path() / "ts_no_such_trace.sqlite");
  std::pair<std::string, std::string> const cases[] = {
      {"summary --comm-pattern " + bad, "--comm-pattern"},
      {"summary --filter-name " + bad, "--filter-name"},
      {"overview --comm-pattern " + bad, "--comm-pattern"},
      {"stats --report cuda_gpu_kern_sum --filter-name " + bad, "--filter-name"},
      {"diagnose --step-pattern " + bad, "--step-pattern"},
      {"diagnose --data-loader-pattern " + bad, "--data-loader-pattern"},
      {"diagnose --filter-name " + bad, "--filter-name"},
      {"diff --comm-pattern " + bad + " " + missing, "--comm-pattern"},
      {"scan --db /nonexistent/x.db --comm-pattern " + bad, "--comm-pattern"},
  };
  for (auto const& [args, option] : cases) {
    auto const r = run_cli(args + " " + missing);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
    EXPECT_EQ(r.err, "tracesweep: " + option +
                         ": '(a{100}){100}': invalid regular expression: invalid repetition "
                         "size: {100}\n")
        << args;
  }
  auto const r = run_cli("--max-event-bytes 0 summary " + missing);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tracesweep: --max-event-bytes: '0' must be at least 1\n");
}

}  // namespace input_checks_test

}  // namespace tracesweep::test
