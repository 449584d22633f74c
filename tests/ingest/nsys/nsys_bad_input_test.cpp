// SPDX-License-Identifier: Apache-2.0
// Bad nsys inputs through the CLI: each gives exactly one stderr line naming the file and the
// problem, exit code 2, no crash, and leaves the file byte-for-byte unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_bad_input_test {

namespace fs = std::filesystem;

fs::path real_export(fs::path const& traces) {
  return traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
}

/// Runs `command` on `file` and checks the one-line failure.
/// With `checksum` false the caller checksums: reading the file here would close a descriptor
/// of it, which drops every POSIX lock this process holds on it (a writer's, in one test).
void expect_rejected(std::string const& command, fs::path const& file, std::string const& problem,
                     bool checksum = true) {
  SCOPED_TRACE(command + " on " + file.string());
  auto const before = checksum ? file_checksum(file) : 0;
  auto const r = run_cli(command + " " + quote(file));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  if (checksum) {
    EXPECT_EQ(file_checksum(file), before);
  }
}

/// A copy of the real export the bad-input tests damage, as `dir`/`file`.
fs::path copy_of_real_export(fs::path const& traces, temp_dir const& dir, std::string const& file) {
  auto copy = dir.path() / file;
  fs::copy_file(real_export(traces), copy);
  return copy;
}

void expect_rejected_everywhere(fs::path const& file, std::string const& problem,
                                bool checksum = true) {
  expect_rejected("stats --report cuda_gpu_kern_sum", file, problem, checksum);
  expect_rejected("stats --report nvtx_sum --format csv", file, problem, checksum);
  expect_rejected("summary", file, problem, checksum);
}

TEST(nsys_bad_input, truncated_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("truncated");
  auto const copy = copy_of_real_export(traces, dir, "truncated.sqlite");
  fs::resize_file(copy, fs::file_size(copy) / 2);
  expect_rejected_everywhere(copy, "damaged");
}

TEST(nsys_bad_input, zeroed_header_of_an_interrupted_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("zeroed");
  auto const copy = copy_of_real_export(traces, dir, "zeroed.sqlite");
  {
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    std::string const zeros(100, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  expect_rejected_everywhere(copy, "unknown format");
}

TEST(nsys_bad_input, not_sqlite_at_all) {
  temp_dir dir("notsqlite");
  auto const file = dir.path() / "report.sqlite";
  {
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>((i * 37 + 11) & 0xFF));
  }
  expect_rejected_everywhere(file, "unknown format");
}

TEST(nsys_bad_input, sqlite_but_not_an_nsys_export) {
  temp_dir dir("notnsys");
  auto const file = dir.path() / "other.sqlite";
  {
    oracle_db db(file, true);
    db.exec(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, "
        "'a')");
  }
  expect_rejected_everywhere(file, "not an Nsight Systems export");
}

TEST(nsys_bad_input, export_without_gpu_activity) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("nogpu");
  auto const copy = copy_of_real_export(traces, dir, "cpu_only.sqlite");
  {
    oracle_db db(copy, true);
    db.exec(
        "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY; "
        "DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET;");
  }
  expect_rejected_everywhere(copy, "no GPU activity");
  // Reports that load no device table still check for GPU activity.
  expect_rejected("stats --report cuda_api_sum", copy, "no GPU activity");
  expect_rejected("stats --report osrt_sum", copy, "no GPU activity");
}

TEST(nsys_bad_input, export_held_by_a_writer) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("locked");
  auto const copy = copy_of_real_export(traces, dir, "being_written.sqlite");
  auto const pristine = file_checksum(copy);
  {
    oracle_db writer(copy, true);
    writer.exec("BEGIN EXCLUSIVE");
    writer.exec("DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET");  // uncommitted change
    expect_rejected_everywhere(copy, "locked by a writer", false);
    writer.exec("ROLLBACK");
  }
  EXPECT_EQ(file_checksum(copy), pristine);
  // Once the writer is gone the same file reads fine.
  EXPECT_EQ(run_cli("stats --report cuda_gpu_kern_sum " + quote(copy)).exit_code, 0);
}

TEST(nsys_bad_input, keep_going_reports_the_bad_file_and_reads_the_good_one) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("keepgoing");
  auto const bad = dir.path() / "bad.sqlite";
  {
    oracle_db db(bad, true);
    db.exec("CREATE TABLE t (x)");
  }
  auto const good = real_export(traces);
  auto const r = run_cli("--keep-going stats --report cuda_gpu_kern_sum --format csv " +
                         quote(bad) + " " + quote(good));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad.string()), std::string::npos);
  EXPECT_GT(parse_csv(r.out).size(), 10u);
}

}  // namespace nsys_bad_input_test

}  // namespace tracesweep::test
