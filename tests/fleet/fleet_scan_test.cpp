// SPDX-License-Identifier: Apache-2.0
// tracesweep scan and report end to end: the real traces plus planted bad files (every good
// trace stored exactly once, every bad one with its error, kernel statistics against SQL on the
// nsys export itself, the report's numbers against the stored rows; the bad ones tried again by
// the next scan), and kill -9 at random points followed by the same command until the run
// completes.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/fleet/results_store.hpp>
#include <tracesweep/input_reader.hpp>

#include "fleet/fleet_test_support.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace {

namespace fs = std::filesystem;

/// Planted bad inputs, one per class a nightly scan meets.
void plant_bad_files(fs::path const& dir, fs::path const& traces) {
  fs::create_directories(dir / "job9");
  std::ofstream(dir / "garbage.json") << "{\"traceEvents\": [ {\"ph\":\"X\", garbage";
  std::ofstream(dir / "empty.json");
  std::ofstream(dir / "notgzip.json.gz") << "this is not gzip";
  std::ofstream(dir / "job9/rank-0.json") << R"({"traceEvents": [{"ph": "X", "ts": NaN}]})";
  // A truncated nsys export, and a SQLite database that is not one.
  auto const real = slurp(traces / "nsys/dlprof/nsys_profile.sqlite");
  std::ofstream(dir / "truncated.sqlite", std::ios::binary) << real.substr(0, 100'000);
  sqlite3* h = nullptr;
  sqlite3_open((dir / "other.sqlite").c_str(), &h);
  sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", nullptr, nullptr, nullptr);
  sqlite3_close(h);
}

std::vector<std::string> canonical_files(fs::path const& root) {
  std::vector<std::string> out;
  for (auto const& f : expand_inputs({root.string()}))
    out.push_back(fs::weakly_canonical(f).string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FleetScan, RealTracesAndPlantedBadFiles) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  scratch_dir d("scan_real");
  plant_bad_files(d / "bad", traces);
  auto const db = d / "results.sqlite";
  auto const r = run_cli("scan " + quote(traces) + " " + quote(d / "bad") + " --db " + quote(db) +
                         " --jobs 2");
  EXPECT_EQ(r.exit_code, 2) << r.err;

  // Every good trace exactly once, ok.
  auto const good = canonical_files(traces);
  ASSERT_GT(good.size(), 20u);
  EXPECT_EQ(sql_rows(db, "SELECT path FROM traces WHERE status = 'ok' ORDER BY path"), good);
  EXPECT_EQ(sql_value(db,
                      "SELECT count(*) = count(DISTINCT path) AND "
                      "count(*) = count(DISTINCT content_hash) FROM traces"),
            "1");
  // Every bad one with its one-line error, naming it; each on stderr too.
  auto const bad = canonical_files(d / "bad");
  EXPECT_EQ(sql_rows(db, "SELECT path FROM traces WHERE status = 'error' ORDER BY path"), bad);
  for (auto const& row : sql_rows(db, "SELECT path, error FROM traces WHERE status = 'error'")) {
    auto const path = row.substr(0, row.find('|'));
    auto const error = row.substr(row.find('|') + 1);
    EXPECT_TRUE(error.starts_with(path + ": ")) << row;
    EXPECT_EQ(error.find('\n'), std::string::npos) << row;
    EXPECT_NE(r.err.find(error), std::string::npos) << error;
  }
  EXPECT_EQ(sql_value(db,
                      "SELECT count(*) FROM traces t WHERE status = 'ok' AND NOT EXISTS "
                      "(SELECT 1 FROM devices d WHERE d.trace_id = t.trace_id) AND "
                      "format <> 'kineto-json'"),
            "0");
  EXPECT_EQ(sql_value(db, "SELECT status FROM runs"), "complete");
  // The two-rank job is one job of two traces.
  EXPECT_EQ(sql_value(db,
                      "SELECT ranks || ':' || (SELECT count(*) FROM traces t WHERE "
                      "t.job_id = j.job_id) FROM jobs j WHERE name = "
                      "'kineto/hta_trace_filter_2rank/sampled_rank-*.json.gz'"),
            "2:2");

  // Kernel statistics of an nsys export against SQL on the export itself.
  auto const nsys = traces / "nsys/dlprof/nsys_profile.sqlite";
  auto const oracle =
      sql_rows(nsys,
               "SELECT s.value, count(*), sum(k.end - k.start), min(k.end - k.start), "
               "max(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
               "ON s.id = k.demangledName GROUP BY s.value ORDER BY s.value");
  ASSERT_FALSE(oracle.empty());
  EXPECT_EQ(sql_rows(db,
                     "SELECT k.name, calls, total_ns, min_ns, max_ns FROM kernels k JOIN "
                     "jobs j USING (job_id) WHERE j.name = 'nsys/dlprof/nsys_profile.sqlite' "
                     "ORDER BY k.name"),
            oracle);

  // The same command again: the failed files are tried again (and fail again), no good trace
  // is stored twice.
  auto const ok_before = sql_value(db, "SELECT count(*) FROM traces WHERE status = 'ok'");
  auto const again =
      run_cli("scan " + quote(traces) + " " + quote(d / "bad") + " --db " + quote(db));
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.out.find("traces: 0 ok, " + std::to_string(bad.size()) + " failed"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM traces WHERE status = 'ok'"), ok_before);
  EXPECT_EQ(sql_rows(db, "SELECT path FROM traces WHERE run_id = 2 ORDER BY path"), bad);
}

/// The fleet report's numbers against sums over the stored job records.
TEST(FleetReport, NumbersMatchTheStoredRows) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  scratch_dir d("report");
  auto const db = d / "results.sqlite";
  ASSERT_EQ(run_cli("scan " + quote(traces) + " --db " + quote(db)).exit_code, 0);
  auto const r = run_cli("report --db " + quote(db) + " --format json --top 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  fleet::results_store const store(db.string(), true);
  auto const jobs = store.load_jobs(store.find_run("latest")->id);
  std::map<std::string, std::int64_t> idle, kernel_total;
  double min_util = 2;
  std::size_t devices = 0;
  for (auto const& j : jobs) {
    for (auto const& dev : j.devices) {
      ++devices;
      min_util = std::min(min_util, dev.utilization);
      std::int64_t examined = 0;
      for (int c = 0; c < idle_cause_count; ++c) {
        idle[std::string(to_string(static_cast<idle_cause>(c)))] += dev.idle[c];
        examined += dev.idle[c];
      }
      idle["short_gaps"] += dev.idle_ns - examined;
    }
    for (auto const& k : j.kernels) kernel_total[k.name] += k.total_ns;
  }

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  auto worst = doc["worst_devices"].get_array();
  ASSERT_EQ(worst.size(), devices);
  EXPECT_EQ(double(worst.at(0)["utilization"]), min_util);
  std::size_t causes = 0;
  for (auto row : doc["idle_by_cause"].get_array()) {
    ++causes;
    std::string const cause{std::string_view(row["cause"])};
    EXPECT_EQ(std::int64_t(row["idle_ns"]), idle[cause]) << cause;
  }
  EXPECT_EQ(causes, 8u);
  auto top = doc["top_kernels"].get_array();
  ASSERT_EQ(top.size(), kernel_total.size());
  for (auto row : top)
    EXPECT_EQ(std::int64_t(row["total_ns"]),
              kernel_total[std::string(std::string_view(row["name"]))]);
  EXPECT_EQ(std::int64_t(doc["run"]["jobs"]), static_cast<std::int64_t>(jobs.size()));
  for (auto const* format : {"text", "csv", "html"})
    EXPECT_EQ(run_cli("report --db " + quote(db) + " --format " + format).exit_code, 0) << format;
  auto const missing = run_cli("report --db " + quote(db) + " --run 42");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("--run 42: no such run"), std::string::npos) << missing.err;
  auto const absent = run_cli("report --db " + quote(d / "absent.sqlite"));
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("absent.sqlite"), std::string::npos) << absent.err;
}

TEST(FleetScan, ProgressLineOnlyOnATerminal) {
  scratch_dir d("progress");
  for (int j = 0; j < 3; ++j) generate_job(d / "traces" / ("job" + std::to_string(j)), 2, 40 + j);
  // Not a terminal: no progress line, only the result on stdout.
  auto const plain = run_cli("scan " + quote(d / "traces") + " --db " + quote(d / "a.sqlite"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
  EXPECT_NE(plain.out.find("run 1: 3 jobs written"), std::string::npos) << plain.out;
  // On a pseudo-terminal (script(1)): the line with files, GB and ETA, redrawn in place.
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  auto const command =
      tracesweep_binary() + " scan " + quote(d / "traces") + " --db " + quote(d / "b.sqlite");
  std::string tty;
  FILE* session = popen(("script -qec " + quote(command) + " /dev/null").c_str(), "r");
  ASSERT_NE(session, nullptr);
  for (char buffer[4096]; auto n = std::fread(buffer, 1, sizeof buffer, session);)
    tty.append(buffer, n);
  EXPECT_EQ(pclose(session), 0) << tty;
  EXPECT_NE(tty.find("\r\033[Kscan: "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" files"), std::string::npos) << tty;
  EXPECT_NE(tty.find(" GB"), std::string::npos) << tty;
  EXPECT_NE(tty.find("run 1: 3 jobs written"), std::string::npos) << tty;
}

/// Jobs stored in `db` so far, read without reporting failures (the scan may not have created
/// the schema yet): -1 when it cannot be read.
int stored_jobs_quietly(fs::path const& db) {
  sqlite3* h = nullptr;
  int n = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM jobs", -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
      n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
  }
  sqlite3_close(h);
  return n;
}

/// Nothing half-written: every job has all its traces, every stored ok trace its devices and
/// every job with ok traces its kernels; the database passes SQLite's integrity check.
void expect_consistent(fs::path const& db, int ranks_per_job) {
  EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(sql_value(db,
                      "SELECT count(*) FROM jobs j WHERE (SELECT count(*) FROM traces t "
                      "WHERE t.job_id = j.job_id) <> " +
                          std::to_string(ranks_per_job)),
            "0");
  EXPECT_EQ(sql_value(db,
                      "SELECT count(*) FROM traces t WHERE NOT EXISTS (SELECT 1 FROM "
                      "devices d WHERE d.trace_id = t.trace_id)"),
            "0");
  EXPECT_EQ(sql_value(db,
                      "SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM "
                      "kernels k WHERE k.job_id = j.job_id)"),
            "0");
  EXPECT_EQ(sql_value(db, "SELECT count(*) - count(DISTINCT path) FROM traces"), "0");
  EXPECT_LE(std::stoi(sql_value(db, "SELECT count(*) FROM runs")), 1);
}

TEST(FleetScan, KillNineAtRandomPointsThenResume) {
  scratch_dir d("kill9");
  int const jobs = 20;
  for (int j = 0; j < jobs; ++j)
    generate_job(d / "traces" / ("job" + std::to_string(j)), 2, 100 + j, 12);
  auto const traces = (d / "traces").string();

  // How long a whole scan takes here, to spread the kills over it.
  auto const t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(run_cli("scan " + quote(traces) + " --db " + quote(d / "timing.sqlite") + " --jobs 2")
                .exit_code,
            0);
  auto const full = std::chrono::steady_clock::now() - t0;
  auto const full_ms = std::chrono::duration_cast<std::chrono::milliseconds>(full).count();

  auto const db = d / "results.sqlite";
  std::uint32_t const seed = std::random_device{}();
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", full scan " + std::to_string(full_ms) + " ms");
  std::uniform_int_distribution<long> delay(1, std::max<long>(2, full_ms * 9 / 10));
  int killed = 0, mid_scan = 0;  // mid_scan: killed with some jobs stored and some not
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto const pid = spawn_cli({"scan", traces, "--db", db.string(), "--jobs", "2"});
    if (attempt == 0) {
      // The first kill lands right after the first job is committed, whatever the machine's
      // load: one kill is certainly mid-scan; the others fall at random times.
      auto const give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (stored_jobs_quietly(db) < 1 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay(rng)));
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    killed += WIFSIGNALED(status) ? 1 : 0;
    if (!fs::exists(db)) continue;
    expect_consistent(db, 2);
    auto const stored = std::stoi(sql_value(db, "SELECT count(*) FROM jobs"));
    mid_scan += WIFSIGNALED(status) && stored > 0 && stored < jobs ? 1 : 0;
  }
  EXPECT_GT(killed, 0);
  EXPECT_GT(mid_scan, 0);
  auto const finish = run_cli("scan " + quote(traces) + " --db " + quote(db) + " --jobs 2");
  ASSERT_EQ(finish.exit_code, 0) << finish.err;
  expect_consistent(db, 2);
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM traces"), std::to_string(2 * jobs));
  EXPECT_EQ(sql_value(db, "SELECT count(*) FROM jobs"), std::to_string(jobs));
  EXPECT_EQ(sql_value(db, "SELECT count(*) || ' ' || min(status) FROM runs"), "1 complete");
  // Row for row the same answers as the uninterrupted scan.
  for (auto const* sql :
       {"SELECT t.path, d.rank, d.device, d.busy_ns, d.utilization, d.idle_sync_ns FROM devices "
        "d JOIN traces t USING (trace_id) ORDER BY 1, 2, 3",
        "SELECT j.path, k.rank, k.name, k.calls, k.total_ns FROM kernels k JOIN jobs j USING "
        "(job_id) ORDER BY 1, 2, 3"})
    EXPECT_EQ(sql_rows(db, sql), sql_rows(d / "timing.sqlite", sql)) << sql;
}

}  // namespace
}  // namespace tracesweep::test
