// SPDX-License-Identifier: Apache-2.0
// Memory that grows with the input, not faster (issue 27, items 5 and 6), measured as the peak
// resident set of the CLI (the kernel's ru_maxrss of the child): each one-kernel file adds as
// much to summary, diagnose and overview at 2,000 files as at 400; each idle gap diagnose
// examines costs at most 200 bytes when --top gaps are listed, and at most 400 with --top 0,
// whose gaps are written without holding the whole list as table cells.
// bench/memory/inputs_and_gaps.sh runs the same at 1 k to 20 k files and 200 k and 1 M gaps. Not
// under sanitizers (their shadow memory is the resident set).
#include <sys/resource.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fleet/fleet_test_support.hpp"
#include "support/address_sanitizer.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"

namespace fs = std::filesystem;

namespace resident_memory_test {

/// Peak resident set of the CLI run with `args` (stdout and stderr discarded), in bytes; fails
/// the test when it does not exit 0.
std::int64_t peak_bytes(std::vector<std::string> const& args) {
  auto const pid = tracesweep::test::spawn_cli(args);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << args.front() << " " << args.back();
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

bool sanitized() {
  return TRACESWEEP_TEST_ASAN == 1;
}

/// `count` one-kernel Kineto files (one generated file, hard-linked) in `dir`.
void one_kernel_files(tracesweep::test::scratch const& s, fs::path const& dir, int count) {
  fs::create_directories(dir);
  auto const one = s.file("one-rank-0.json");
  if (!fs::exists(one)) {
    auto const r = tracesweep::test::run_cli(
        "generate --format kineto-json --ranks 1 --steps 1 "
        "--kernels-per-step 1 -o " +
        tracesweep::test::quote(s.file("one-")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (int i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "f-%06d.json", i);
    fs::create_hard_link(one, dir / name);
  }
}

TEST(ResidentMemory, EachFileAddsAsMuchAtTwoThousandFilesAsAtFourHundred) {
  if (sanitized()) GTEST_SKIP() << "resident memory under a sanitizer";
  tracesweep::test::scratch s("resident_files");
  one_kernel_files(s, s.file("small"), 400);
  one_kernel_files(s, s.file("large"), 2000);
  for (char const* cmd : {"summary", "diagnose", "overview"}) {
    auto const run = [&](fs::path const& in) {
      return peak_bytes({"--threads", "1", "--ranks-from", "order", cmd, in.string()});
    };
    auto const one = run(s.file("one-rank-0.json"));
    auto const small = run(s.file("small")), large = run(s.file("large"));
    double const early = double(small - one) / 399, late = double(large - small) / 1600;
    // Linear: the files past 400 cost what the first ones did (quadratic growth makes the late
    // ones cost 3 times as much and more); 64 KiB of slack for the allocator's steps.
    EXPECT_LE(late, 1.5 * early + 65536.0 / 1600)
        << cmd << ": " << early << " B/file up to 400, " << late << " B/file from 400 to 2000";
    EXPECT_LE(late, 64 * 1024) << cmd;
  }
}

/// A Kineto trace of `n` kernels of 5 µs, 10 µs apart (an idle gap of 5 µs after each but the
/// last), each launched by a runtime call of one thread (so each gap has host context).
void write_gaps_trace(fs::path const& path, int n) {
  std::ofstream out(path);
  out << "{\"traceEvents\":[\n";
  for (int i = 0; i < n; ++i) {
    long long const t = 10LL * i + 100;
    out << "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
           "\"tid\":1,\"ts\":"
        << t - 3 << ",\"dur\":2,\"args\":{\"correlation\":" << i + 1 << "}},\n"
        << "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":" << t
        << ",\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":" << i + 1 << "}}"
        << (i + 1 < n ? ",\n" : "\n");
  }
  out << "]}\n";
}

TEST(ResidentMemory, AGapCostsAtMost200BytesWhenTheTopAreListed) {
  if (sanitized()) GTEST_SKIP() << "resident memory under a sanitizer";
  tracesweep::test::scratch s("resident_gaps");
  constexpr int gaps = 100'000;
  auto const trace = s.file("gaps.json").string();
  write_gaps_trace(trace, gaps + 1);
  auto const totals =
      tracesweep::test::run_cli("diagnose --min-gap 1 --top 1 --format json --table totals " +
                                tracesweep::test::quote(trace));
  ASSERT_EQ(totals.exit_code, 0) << totals.err;
  ASSERT_NE(totals.out.find("\"gaps\": " + std::to_string(gaps) + ","), std::string::npos)
      << totals.out;
  auto const run = [&](std::vector<std::string> more) {
    std::vector<std::string> a{"--threads", "1", "diagnose"};
    a.insert(a.end(), more.begin(), more.end());
    a.push_back(trace);
    return peak_bytes(a);
  };
  auto const none = run({"--min-gap", "1000000000000000", "--top", "10"});
  auto const top = run({"--min-gap", "1", "--top", "10"});
  auto const all_text = run({"--min-gap", "1", "--top", "0"});
  auto const all_json = run({"--min-gap", "1", "--top", "0", "--format", "json"});
  double const per_top = double(top - none) / double(gaps);
  double const per_all_text = double(all_text - none) / double(gaps);
  double const per_all_json = double(all_json - none) / double(gaps);
  EXPECT_LE(per_top, 200) << gaps << " gaps";
  // Every gap with its host context (up to 8 events and its neighbours) is kept for the writer
  // as event-table rows, named only as each row is written (~230 B a gap; strings: ~460 B).
  EXPECT_LE(per_all_text, 400) << gaps << " gaps";
  EXPECT_LE(per_all_json, 400) << gaps << " gaps";
}

TEST(ResidentMemory, TheTopGapsAndEveryGapAreTheOnesWritten) {
  // 1,000 equal gaps: --top keeps the first by start (the tie-break), --top 0 writes each one.
  tracesweep::test::scratch s("listed_gaps");
  auto const trace = s.file("gaps.json").string();
  write_gaps_trace(trace, 1001);
  auto const starts = [&](std::string const& top) {
    auto const r =
        tracesweep::test::run_cli("diagnose --min-gap 1 --format csv --table gaps --top " + top +
                                  " " + tracesweep::test::quote(trace));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> out;
    std::istringstream lines(r.out);
    std::string line;
    std::getline(lines, line);  // header: input,rank,device,start_ns,end_ns,...
    while (std::getline(lines, line)) {
      std::istringstream cells(line);
      std::string cell;
      for (int k = 0; k < 5 && std::getline(cells, cell, ','); ++k)
        if (k >= 3) out.push_back(cell);
    }
    return out;
  };
  // Kernel i runs [10 i + 100, 10 i + 105) µs: gap i is [10 i + 105, 10 i + 110) µs.
  auto const gap = [](int i) {
    return std::vector<std::string>{std::to_string((10LL * i + 105) * 1000),
                                    std::to_string((10LL * i + 110) * 1000)};
  };
  std::vector<std::string> first3, all;
  for (int i = 0; i < 1000; ++i) {
    auto const g = gap(i);
    all.insert(all.end(), g.begin(), g.end());
    if (i < 3) first3.insert(first3.end(), g.begin(), g.end());
  }
  EXPECT_EQ(starts("3"), first3);
  EXPECT_EQ(starts("0"), all);
}

}  // namespace resident_memory_test
