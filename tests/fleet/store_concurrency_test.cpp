// SPDX-License-Identifier: Apache-2.0
// The results store under concurrency and change, with real processes: two scans into one
// store (the second waits, then names the first), a scan killed mid-run (its run interrupted,
// report skipping it), files replaced or truncated between identification and storing (the scan
// pauses there through its test hook, TRACESWEEP_TEST_SCAN_PAUSE), traces stored as errors
// analysed again, and many more workers asked for than there are jobs.
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "support/address_sanitizer.hpp"

#include "fleet/fleet_test_support.hpp"

namespace tracesweep::test {
namespace store_concurrency_test {

namespace fs = std::filesystem;

/// The scan's pause points: a scan started by `start` stops at stage S (identified: every file
/// hashed, no run open yet; analyzed: a job analyzed, not yet stored) while the file DIR/S
/// exists, after creating DIR/S.reached.
class scan_pause {
 public:
  scan_pause(fs::path dir, std::vector<std::string> const& stages) : _dir(std::move(dir)) {
    fs::create_directories(_dir);
    for (auto const& s : stages) std::ofstream(_dir / s).put('\n');
  }
  /// Starts `tracesweep scan TRACES --db DB more…` (stderr to `err`) with the hook set, and
  /// waits until it stops at `stage`: its pid, or 0 when it ended without stopping there.
  [[nodiscard]] pid_t start(std::string const& stage, fs::path const& traces, fs::path const& db,
                            std::vector<std::string> const& more = {},
                            fs::path const& err = "/dev/null") const {
    std::vector<std::string> args{"scan", traces.string(), "--db", db.string()};
    args.insert(args.end(), more.begin(), more.end());
    setenv("TRACESWEEP_TEST_SCAN_PAUSE", _dir.c_str(), 1);
    auto const pid = spawn_cli(args, err);
    unsetenv("TRACESWEEP_TEST_SCAN_PAUSE");
    return reached(stage, pid) ? pid : 0;
  }
  /// Waits until the scan `pid` stops at `stage`: false when it ended without stopping there.
  [[nodiscard]] bool reached(std::string const& stage, pid_t pid) const {
    return wait_for_file(_dir / (stage + ".reached"), pid);
  }
  void release(std::string const& stage) const { fs::remove(_dir / stage); }

 private:
  fs::path _dir;
};

/// Kills (-9) a scan of `traces` into `db` where it has opened its run and analyzed a job.
void kill_scan_mid_run(fs::path const& pause_dir, fs::path const& traces, fs::path const& db,
                       std::vector<std::string> const& more = {}) {
  scan_pause pause(pause_dir, {"analyzed"});
  auto const scan = pause.start("analyzed", traces, db, more);
  ASSERT_NE(scan, 0) << "the scan never stopped after analyzing a job";
  kill(scan, SIGKILL);
  EXPECT_EQ(wait_exit(scan), 128 + SIGKILL);
}

std::size_t line_count(std::string const& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string scan_command(fs::path const& traces, fs::path const& db, std::string const& more) {
  return "scan " + quote(traces) + " --db " + quote(db) + " " + more;
}

/// A scratch folder holding a two-rank job (traces/a) and the path of a store (r.sqlite).
struct job_and_store {
  explicit job_and_store(std::string const& tag)
      : d(tag), traces(d / "traces"), db(d / "r.sqlite") {
    generate_job(traces / "a", 2, 1);
  }
  scratch_dir d;
  fs::path traces, db;
};

/// The run that `report --run WHICH` reports, as "id|label|status".
std::string reported_run(fs::path const& db, std::string const& which) {
  auto const r =
      run_cli("report --db " + quote(db) + " --run " + which + " --table run --format csv");
  if (r.exit_code != 0) return "exit " + std::to_string(r.exit_code) + ": " + r.err;
  auto const row = r.out.substr(r.out.find('\n') + 1);
  auto const third_comma = row.find(',', row.find(',', row.find(',') + 1) + 1);
  auto text = row.substr(0, third_comma);
  std::replace(text.begin(), text.end(), ',', '|');
  return text;
}

TEST(ScanLock, ASecondScanWaitsThenNamesTheFirst) {
  job_and_store const js("lock_busy");
  auto const& [d, traces, db] = js;
  scan_pause pause(d / "pause", {"identified"});
  auto const first = pause.start("identified", traces, db, {"--label", "first"});
  ASSERT_NE(first, 0);

  auto const t0 = std::chrono::steady_clock::now();
  auto const second = run_cli(scan_command(traces, db, "--label second --wait 1"));
  auto const waited = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_EQ(line_count(second.err), 1u) << second.err;
  EXPECT_NE(second.err.find(db.string()), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("pid " + std::to_string(first)), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find("UNIQUE"), std::string::npos) << second.err;
  EXPECT_GE(waited, std::chrono::milliseconds(900));
  EXPECT_LT(waited, std::chrono::seconds(30));

  pause.release("identified");
  EXPECT_EQ(wait_exit(first), 0);
  // The second scan left no run behind; the first one's is the latest.
  EXPECT_EQ(sql_rows(db,
                     "SELECT label, status, (SELECT count(*) FROM jobs j WHERE j.run_id = "
                     "r.run_id) FROM runs r"),
            std::vector<std::string>{"first|complete|1"});
  EXPECT_EQ(reported_run(db, "latest"), "1|first|complete");
}

TEST(ScanLock, ASecondScanWithinItsWaitRunsAfterTheFirst) {
  job_and_store const js("lock_wait");
  auto const& [d, traces, db] = js;
  scan_pause pause(d / "pause", {"identified"});
  auto const first = pause.start("identified", traces, db);
  ASSERT_NE(first, 0);
  auto const second =
      spawn_cli({"scan", traces.string(), "--db", db.string(), "--wait", "120"}, d / "second.err");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  pause.release("identified");
  EXPECT_EQ(wait_exit(first), 0);
  EXPECT_EQ(wait_exit(second), 0) << slurp(d / "second.err");
  EXPECT_EQ(sql_value(db, "SELECT count(*) || ' ' || min(status) FROM runs"), "1 complete");
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM traces"), "2");
}

TEST(ScanLock, ACrashedRunIsInterruptedAndReportSkipsIt) {
  job_and_store const js("lock_crash");
  auto const& [d, traces, db] = js;
  ASSERT_EQ(run_cli(scan_command(traces, db, "--label night")).exit_code, 0);
  generate_job(traces / "b", 2, 2);
  kill_scan_mid_run(d / "pause", traces, db, {"--label", "night"});
  // The killed scan's run holds no job: report goes on showing the complete one.
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM jobs WHERE run_id = 2"), "0");
  EXPECT_EQ(reported_run(db, "latest"), "1|night|complete");

  // Another scan marks it interrupted (and leaves it so); report still skips it.
  auto const other = run_cli(scan_command(traces, db, "--label other"));
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(
      sql_rows(db, "SELECT run_id, label, status FROM runs ORDER BY run_id"),
      (std::vector<std::string>{"1|night|complete", "2|night|interrupted", "3|other|complete"}));
  EXPECT_EQ(reported_run(db, "latest"), "3|other|complete");
  EXPECT_EQ(reported_run(db, "previous"), "1|night|complete");
  EXPECT_EQ(reported_run(db, "2"), "2|night|interrupted");
}

TEST(ScanLock, TheSameCommandCompletesAnInterruptedRun) {
  job_and_store const js("lock_resume");
  auto const& [d, traces, db] = js;
  kill_scan_mid_run(d / "pause", traces, db);
  auto const again = run_cli(scan_command(traces, db, ""));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("run 1 (resumed): 1 jobs written"), std::string::npos) << again.out;
  EXPECT_EQ(sql_value(db, "SELECT count(*) || ' ' || min(status) FROM runs"), "1 complete");
}

/// A one-rank job whose file the test changes during a scan.
struct changing_job {
  explicit changing_job(scratch_dir const& d) : traces(d / "traces"), file(traces / "rank-0.json") {
    generate_job(d / "traces", 1, 1);
    generate_job(d / "other", 1, 7, 3);
  }
  fs::path traces, file;
};

TEST(ScanChange, AFileReplacedDuringTheScanIsReportedNotStored) {
  scratch_dir d("change_replace");
  changing_job job(d);
  auto const db = d / "r.sqlite";
  scan_pause pause(d / "pause", {"identified"});
  auto const scan = pause.start("identified", job.traces, db, {}, d / "scan.err");
  ASSERT_NE(scan, 0);
  fs::rename(d / "other" / "rank-0.json", job.file);  // a new file in its place
  pause.release("identified");
  EXPECT_EQ(wait_exit(scan), 2);
  auto const err = slurp(d / "scan.err");
  EXPECT_EQ(line_count(err), 1u) << err;
  EXPECT_NE(err.find(job.file.string() + ": changed while it was scanned"), std::string::npos)
      << err;
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM traces"), "0");

  auto const next = run_cli(scan_command(job.traces, db, ""));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(sql_rows(db, "SELECT size_bytes, status FROM traces"),
            std::vector<std::string>{std::to_string(fs::file_size(job.file)) + "|ok"});
}

TEST(ScanChange, AFileTruncatedThenRestoredIsReportedAndReadAgain) {
  scratch_dir d("change_truncate");
  changing_job job(d);
  auto const db = d / "r.sqlite";
  auto const content = slurp(job.file);
  auto const mtime = fs::last_write_time(job.file);
  scan_pause pause(d / "pause", {"identified", "analyzed"});
  auto const scan = pause.start("identified", job.traces, db, {}, d / "scan.err");
  ASSERT_NE(scan, 0);
  std::ofstream(job.file, std::ios::binary) << content.substr(0, content.size() / 2);
  pause.release("identified");
  ASSERT_TRUE(pause.reached("analyzed", scan));
  std::ofstream(job.file, std::ios::binary) << content;  // the same file, its content back
  fs::last_write_time(job.file, mtime);
  pause.release("analyzed");
  EXPECT_EQ(wait_exit(scan), 2);
  auto const err = slurp(d / "scan.err");
  EXPECT_NE(err.find(job.file.string() + ": changed while it was scanned"), std::string::npos)
      << err;
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM traces"), "0");

  auto const next = run_cli(scan_command(job.traces, db, ""));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(sql_value(db, "SELECT group_concat(status) FROM traces"), "ok");
}

TEST(ScanRetry, ATraceStoredAsAnErrorIsAnalysedByTheNextScan) {
  scratch_dir d("retry");
  generate_job(d / "traces", 1, 1);
  auto const db = d / "r.sqlite";
  // A filter that matches nothing stores the good trace as an error.
  auto const filtered = run_cli(scan_command(d / "traces", db, "--filter-nvtx absent_range"));
  EXPECT_EQ(filtered.exit_code, 2) << filtered.err;
  EXPECT_EQ(sql_value(db, "SELECT status FROM traces"), "error");
  auto const next = run_cli(scan_command(d / "traces", db, ""));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.out.find("traces: 1 ok, 0 failed"), std::string::npos) << next.out;
  EXPECT_EQ(sql_rows(db, "SELECT run_id, status FROM traces ORDER BY trace_id"),
            (std::vector<std::string>{"1|error", "2|ok"}));
  auto const again = run_cli(scan_command(d / "traces", db, ""));
  EXPECT_NE(again.out.find("nothing new"), std::string::npos) << again.out;
}

/// Twelve one-rank jobs under `dir`.
void generate_dozen_jobs(fs::path const& dir) {
  for (int j = 0; j < 12; ++j) generate_job(dir / ("job" + std::to_string(j)), 1, j);
}

/// `tracesweep args…` with at most `kib` KiB of address space (ulimit -v).
cli_result run_cli_within(std::string const& args, int kib) {
  return run_cli(args, 0, "sh -c 'ulimit -v " + std::to_string(kib) + " && exec \"$0\" \"$@\"' ");
}

TEST(ScanWorkers, ManyMoreWorkersThanJobsNeverAbort) {
#if TRACESWEEP_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: no ulimit -v";
#endif
  scratch_dir d("workers");
  generate_dozen_jobs(d / "traces");
  // Address space for a dozen workers, not for 400 stacks of 8 MiB.
  auto const many =
      run_cli_within(scan_command(d / "traces", d / "many.sqlite", "--jobs 400"), 1'500'000);
  EXPECT_EQ(many.exit_code, 0) << many.err;
  EXPECT_EQ(many.err.find("terminate"), std::string::npos) << many.err;
  EXPECT_EQ(sql_value(d / "many.sqlite", "SELECT count(*) FROM jobs"), "12");
}

TEST(ScanWorkers, AWorkerThatCannotStartIsNeverAnAbort) {
  if (geteuid() != 0 || std::system("command -v prlimit setpriv >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "needs root, prlimit and setpriv (a thread limit for an unprivileged user)";
  scratch_dir d("workers_nproc");
  generate_dozen_jobs(d / "traces");
  fs::permissions(d.path(), fs::perms::all);
  // As nobody, with 8 threads for the whole user: a dozen workers cannot all start.
  auto const r = run_cli(scan_command(d / "traces", d / "r.sqlite", "--jobs 12"), 0,
                         "prlimit --nproc=8 setpriv --reuid=65534 --regid=65534 --clear-groups ");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.exit_code << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  EXPECT_LE(line_count(r.err), 1u) << r.err;
}

}  // namespace store_concurrency_test

}  // namespace tracesweep::test
