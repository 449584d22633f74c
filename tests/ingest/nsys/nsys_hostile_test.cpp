// SPDX-License-Identifier: Apache-2.0
// Hostile nsys exports through the CLI: rowids at the int64 limits or far apart, values of the
// wrong SQLite type in integer columns, name ids StringIds lacks, a WAL database, and inputs
// that are not regular files. Each ends in exit 2 with one stderr line naming the file, or in
// rows skipped and counted by reason; none crashes, hangs or grows without bound, and the input
// and its folder are left exactly as they were.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_hostile_test {

namespace fs = std::filesystem;

constexpr char const* kernel_table = "CUPTI_ACTIVITY_KIND_KERNEL";

/// A writable copy of the real export `name` (under nsys/nsys-ai) as `dir`/`file`.
fs::path copy_export(fs::path const& traces, std::string const& name, temp_dir const& dir,
                     std::string const& file) {
  auto copy = dir.path() / file;
  fs::copy_file(traces / "nsys" / "nsys-ai" / name, copy);
  fs::permissions(copy, fs::perms::owner_write, fs::perm_options::add);
  return copy;
}

/// The names and sizes of every entry of `dir`.
std::set<std::pair<std::string, std::uintmax_t>> listing(fs::path const& dir) {
  std::set<std::pair<std::string, std::uintmax_t>> out;
  for (auto const& e : fs::directory_iterator(dir)) {
    std::error_code ec;
    auto const size = e.is_regular_file() ? e.file_size(ec) : 0;
    out.emplace(e.path().filename().string(), size);
  }
  return out;
}

/// The kernel summary as CSV; checks the run succeeded.
std::string kernel_csv(fs::path const& file) {
  auto const r = run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

/// The kernels the kernel report counts (its Instances column summed).
/// The sum of the `column` cells of a stats report's CSV.
std::int64_t column_total(std::string const& csv, std::string const& column) {
  auto const rows = parse_csv(csv);
  EXPECT_GT(rows.size(), 1u);
  if (rows.empty()) return -1;
  auto const at =
      static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), column) - rows[0].begin());
  std::int64_t counted = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) counted += std::stoll(rows[i].at(at));
  return counted;
}

std::int64_t kernel_instances(fs::path const& file) {
  return column_total(kernel_csv(file), "Instances");
}

/// The runtime calls cuda_api_sum counts.
std::int64_t api_calls(fs::path const& file) {
  auto const r = run_cli("stats --report cuda_api_sum --format csv " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return column_total(r.out, "Num Calls");
}

/// The rows of the GPU trace (every GPU operation, with its stream and correlation).
std::size_t gpu_trace_rows(fs::path const& file) {
  auto const r = run_cli("stats --report cuda_gpu_trace --format csv " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return parse_csv(r.out).size();
}

/// The `skipped` cell of the summary's inputs table (`reason=count;…`) and the GPU operations
/// kept (the summary reads the GPU tables alone, without streams and correlations).
std::pair<std::string, std::string> skipped_and_events(fs::path const& file) {
  auto const r = run_cli("summary --table inputs --format csv " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto const rows = parse_csv(r.out);
  EXPECT_EQ(rows.size(), 2u) << r.out;
  if (rows.size() != 2u) return {};
  auto const& header = rows[0];
  auto col = [&](std::string const& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  return {rows[1].at(col("skipped")), rows[1].at(col("gpu_operations"))};
}

void expect_one_line_failure(cli_result const& r, fs::path const& file, std::string const& why) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

/// Runs the kernel report on `file`, checks it matches `expected`, took under 10 s and that no
/// child of this process ever exceeded 1 GB of resident memory.
void expect_same_kernels_quickly(fs::path const& file, std::string const& expected) {
  SCOPED_TRACE(file.string());
  auto const t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(kernel_csv(file), expected);
  auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0);
  rusage u{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &u), 0);
  EXPECT_LT(u.ru_maxrss, 1024L * 1024L) << "KiB";  // ru_maxrss is in KiB on Linux
}

TEST(nsys_hostile, rowids_at_the_int64_limits_or_far_apart) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("rowids");
  auto const pristine = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "pristine.sqlite");
  auto const expected = kernel_csv(pristine);
  ASSERT_GT(parse_csv(expected).size(), 10u);
  std::string const k = kernel_table;
  struct variant {
    char const* file;
    std::string sql;
  };
  // Each keeps the rows' order, so the report must not change.
  variant const variants[] = {
      {"max.sqlite", "UPDATE " + k + " SET rowid = 9223372036854775807 WHERE rowid = (SELECT " +
                         "max(rowid) FROM " + k + ")"},
      {"min.sqlite", "UPDATE " + k + " SET rowid = -9223372036854775807 - 1 WHERE rowid = " +
                         "(SELECT min(rowid) FROM " + k + ")"},
      {"negative.sqlite", "UPDATE " + k + " SET rowid = rowid - 1000000000"},
      {"sparse.sqlite", "UPDATE " + k + " SET rowid = rowid * 2000000000000"},
  };
  for (auto const& v : variants) {
    auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, v.file);
    {
      oracle_db db(file, true);
      db.exec(v.sql);
    }
    expect_same_kernels_quickly(file, expected);
  }
}

TEST(nsys_hostile, sparse_rowids_over_many_read_ranges) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("manyranges");
  // 70 copies of the kernels: over 2^18 rows, so more than one read range.
  auto const dense = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "dense.sqlite");
  std::string const k = kernel_table;
  {
    oracle_db db(dense, true);
    db.exec("CREATE TEMP TABLE one AS SELECT * FROM " + k);
    for (int i = 0; i < 69; ++i) db.exec("INSERT INTO " + k + " SELECT * FROM one");
    ASSERT_GT(db.query("SELECT count(*) FROM " + k)[0][0].i, 1 << 18);
  }
  auto const sparse = dir.path() / "sparse.sqlite";
  fs::copy_file(dense, sparse);
  {
    oracle_db db(sparse, true);
    // Every new rowid is above every old one, so none collides; the order is kept.
    db.exec("UPDATE " + k + " SET rowid = rowid * 2000000000000 + 7");
  }
  auto const expected = kernel_csv(dense);
  ASSERT_GT(parse_csv(expected).size(), 10u);
  expect_same_kernels_quickly(sparse, expected);
  auto const r =
      run_cli("--threads 1 stats --report cuda_gpu_kern_sum --format csv " + quote(sparse));
  EXPECT_EQ(r.out, expected);
}

TEST(nsys_hostile, non_integer_values_are_skipped_and_counted) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("types");
  auto const pristine = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "pristine.sqlite");
  auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "types.sqlite");
  std::string const k = kernel_table;
  std::int64_t kernels = 0;
  {
    oracle_db db(file, true);
    kernels = db.query("SELECT count(*) FROM " + k)[0][0].i;
    db.exec("UPDATE " + k + " SET start = 'abc' WHERE rowid = 5");
    db.exec("UPDATE " + k + " SET \"end\" = 1.5e300 WHERE rowid = 6");
    db.exec("UPDATE " + k + " SET deviceId = x'00' WHERE rowid = 7");
    db.exec("UPDATE " + k + " SET streamId = 2.5 WHERE rowid = 8");
    // NULL keeps its meaning in a nullable column (no correlation): the row stays.
    db.exec("UPDATE " + k + " SET correlationId = NULL WHERE rowid = 9");
    db.exec("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 'x' WHERE rowid = 3");
  }
  auto const [pristine_skipped, pristine_events] = skipped_and_events(pristine);
  EXPECT_EQ(pristine_skipped, "");
  // The summary reads the kernels' times, device, process and stream (its unions merge each
  // stream's kernels), not their correlation: four rows go.
  auto const [skipped, events] = skipped_and_events(file);
  EXPECT_EQ(skipped, "non_integer_value=4");
  EXPECT_EQ(std::stoll(events), std::stoll(pristine_events) - 4);
  // The kernel report reads no stream: three.
  EXPECT_EQ(kernel_instances(file), kernels - 3);
  // The GPU trace reads streams and correlations too: the fourth kernel goes as well.
  EXPECT_EQ(gpu_trace_rows(file), gpu_trace_rows(pristine) - 4);
  // A value that is not an integer in a host table: the runtime call goes.
  EXPECT_EQ(api_calls(file), api_calls(pristine) - 1);
}

TEST(nsys_hostile, unknown_string_ids_are_skipped_and_counted) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("strings");
  auto const pristine = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "pristine.sqlite");
  auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "strings.sqlite");
  {
    oracle_db db(file, true);
    db.exec("UPDATE " + std::string(kernel_table) +
            " SET shortName = 987654321, demangledName = 987654321 WHERE rowid = 5");
    db.exec("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 987654321 WHERE rowid = 3");
    db.exec(
        "UPDATE NVTX_EVENTS SET textId = 987654321 WHERE rowid = (SELECT min(rowid) FROM "
        "NVTX_EVENTS WHERE eventType = 59 AND text IS NULL AND textId IS NOT NULL)");
    ASSERT_EQ(db.query("SELECT changes()")[0][0].i, 1);
  }
  auto const [pristine_skipped, pristine_events] = skipped_and_events(pristine);
  auto const [skipped, events] = skipped_and_events(file);
  // The summary reads the kernel table alone; the runtime and NVTX rows go where they are read.
  EXPECT_EQ(skipped, "unknown_string_id=1");
  EXPECT_EQ(std::stoll(events), std::stoll(pristine_events) - 1);
  EXPECT_EQ(api_calls(file), api_calls(pristine) - 1);
  auto const nvtx = [](fs::path const& f) {
    auto const r = run_cli("stats --report nvtx_sum --format csv " + quote(f));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return column_total(r.out, "Instances");
  };
  EXPECT_EQ(nvtx(file), nvtx(pristine) - 1);
  auto const r = run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(file));
  EXPECT_EQ(r.out.find("987654321"), std::string::npos) << r.out;
}

TEST(nsys_hostile, string_ids_at_the_int64_limits) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("string_limits");
  auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "limits.sqlite");
  {
    // Two unused ids moved to the ends of int64: the id arithmetic must neither overflow (UBSan
    // in CI) nor make any other id resolve differently.
    oracle_db db(file, true);
    db.exec(
        "INSERT INTO StringIds (id, value) VALUES (9223372036854775807, 'top'), "
        "(-9223372036854775807 - 1, 'bottom')");
    db.exec("UPDATE " + std::string(kernel_table) +
            " SET shortName = 9223372036854775807, demangledName = 9223372036854775807 WHERE "
            "rowid = 5");
  }
  auto const r = run_cli("stats --report cuda_gpu_kern_sum --format csv " + quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(",top\n"), std::string::npos) << r.out;  // (a negative id is <unnamed>)
}

TEST(nsys_hostile, reading_creates_nothing_beside_the_input) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("untouched");
  auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "report.sqlite");
  auto const before = listing(dir.path());
  auto const sum = file_checksum(file);
  for (auto const* command : {"summary", "stats --report nvtx_sum", "diagnose"}) {
    auto const r = run_cli(std::string(command) + " " + quote(file));
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_EQ(listing(dir.path()), before) << command;
    EXPECT_EQ(file_checksum(file), sum) << command;
  }
}

/// A WAL database whose -wal file holds committed pages the main file lacks: main and wal are
/// copied while the writer still has them open (as a crashed or running nsys would leave them).
fs::path wal_export(fs::path const& traces, temp_dir const& work, temp_dir const& dir) {
  auto const live = copy_export(traces, "mfu_2gpu_before.sqlite", work, "live.sqlite");
  oracle_db writer(live, true);
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA wal_autocheckpoint = 0");
  writer.exec("DELETE FROM " + std::string(kernel_table) + " WHERE rowid > 10");
  auto const file = dir.path() / "wal.sqlite";
  fs::copy_file(live, file);
  fs::copy_file(fs::path(live.string() + "-wal"), fs::path(file.string() + "-wal"));
  return file;
}

TEST(nsys_hostile, wal_export_with_pages_in_its_wal_is_refused_untouched) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir work("walwork"), dir("wal");
  auto const file = wal_export(traces, work, dir);
  ASSERT_GT(fs::file_size(file.string() + "-wal"), 0u);
  auto const before = listing(dir.path());
  auto const sum = file_checksum(file);
  auto const wal_sum = file_checksum(file.string() + "-wal");
  for (auto const* command : {"summary", "stats --report cuda_gpu_kern_sum"}) {
    auto const r = run_cli(std::string(command) + " " + quote(file));
    expect_one_line_failure(r, file, "WAL mode");
    EXPECT_NE(r.err.find("wal_checkpoint(TRUNCATE)"), std::string::npos) << r.err;
    EXPECT_EQ(listing(dir.path()), before) << command;
    EXPECT_EQ(file_checksum(file), sum);
    EXPECT_EQ(file_checksum(file.string() + "-wal"), wal_sum);
  }
  // Checkpointed as the hint says, it reads, with the WAL's change, and nothing appears.
  {
    oracle_db db(file, true);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  fs::remove(file.string() + "-wal");
  fs::remove(file.string() + "-shm");
  auto const clean = listing(dir.path());
  auto const [skipped, events] = skipped_and_events(file);
  EXPECT_EQ(skipped, "");
  EXPECT_EQ(kernel_instances(file), 10);
  EXPECT_EQ(listing(dir.path()), clean);
}

/// Big-endian integers of an SQLite page.
TEST(nsys_hostile, a_damaged_page_is_an_error_not_phantom_rows) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  temp_dir dir("damaged");
  auto const file = copy_export(traces, "mfu_2gpu_before.sqlite", dir, "damaged.sqlite");
  std::size_t page_size = 0, page = 0;
  {
    oracle_db db(file);
    page = static_cast<std::size_t>(db.query("SELECT rootpage FROM sqlite_master WHERE name = '" +
                                             std::string(kernel_table) + "'")[0][0]
                                        .i);
    page_size = static_cast<std::size_t>(db.query("PRAGMA page_size")[0][0].i);
  }
  auto bytes = slurp(file);
  // Down the leftmost path of the kernel table's b-tree to its first leaf (type 13).
  for (;;) {
    auto const off = (page - 1) * page_size + (page == 1 ? 100 : 0);
    if (bytes[off] == 13) break;
    auto const cell = (page - 1) * page_size + big_endian(bytes, off + 12, 2);
    page = big_endian(bytes, cell, 4);
  }
  // Cell 0 made to point at cell 1: SQLite reads the row twice without complaint.
  auto const off = (page - 1) * page_size;
  bytes[off + 8] = bytes[off + 10];
  bytes[off + 9] = bytes[off + 11];
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  auto const r = run_cli("summary " + quote(file));
  expect_one_line_failure(r, file, "damaged SQLite file (PRAGMA quick_check: On tree page");
}

TEST(nsys_hostile, fifo_input_is_refused_at_once) {
  temp_dir dir("fifo");
  auto const fifo = dir.path() / "report.sqlite";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (auto const* command : {"summary", "stats --report cuda_gpu_kern_sum", "diagnose"}) {
    // Under a timeout: a reader that opens the FIFO would wait forever for a writer.
    auto const r = run_cli(std::string(command) + " " + quote(fifo), 20);
    expect_one_line_failure(r, fifo, "not a regular file");
  }
  auto const r = run_cli("summary /dev/null", 20);
  expect_one_line_failure(r, "/dev/null", "not a regular file");
}

}  // namespace nsys_hostile_test

}  // namespace tracesweep::test
