// SPDX-License-Identifier: Apache-2.0
// The results store's refusals, end to end: a schema version the tool does not know (negative,
// zero with tables, newer) and a version that does not match the tables are one line naming the
// file, exit 2, the store untouched; a store on a read-only filesystem says that WAL needs a
// writable folder; a failed merge leaves its output as it was; a damaged store whose rows name
// a trace their job does not hold is refused, not a crash.
#include <climits>
#include <cstdlib>

#include <gtest/gtest.h>

#include <tracesweep/fleet/results_store.hpp>

#include "fleet/fleet_test_support.hpp"

namespace tracesweep::test {
namespace store_errors_test {

namespace fs = std::filesystem;

void set_user_version(fs::path const& db, long long version) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  auto const sql = "PRAGMA user_version = " + std::to_string(version);
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
}

/// The files of `dir` (names and contents), to see that nothing changed.
std::vector<std::string> folder_state(fs::path const& dir) {
  std::vector<std::string> out;
  for (auto const& e : fs::directory_iterator(dir))
    if (e.is_regular_file())
      out.push_back(e.path().filename().string() + ":" +
                    std::to_string(std::hash<std::string>{}(slurp(e.path()))));
  std::sort(out.begin(), out.end());
  return out;
}

/// Expects `r` to be one line naming `file` and saying `what`, exit 2.
void expect_refusal(cli_result const& r, fs::path const& file, std::string const& what) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file.string() + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST(StoreVersion, UnknownVersionsAreOneLineAndLeaveTheStoreUntouched) {
  scratch_dir d("version");
  generate_job(d / "traces", 1, 1);
  for (long long const version : {-1LL, -100LL, -100000LL, static_cast<long long>(INT_MIN), 0LL,
                                  99LL, static_cast<long long>(INT_MAX)}) {
    SCOPED_TRACE("user_version " + std::to_string(version));
    auto const store = d / ("v" + std::to_string(version));
    fs::create_directories(store);
    auto const db = store / "r.sqlite";
    fleet::results_store::create_at_version(db.string(), fleet::results_store::schema_version);
    set_user_version(db, version);
    auto const before = folder_state(store);
    auto const what = version == 0 ? std::string("not a tracesweep results database")
                                   : "schema version " + std::to_string(version);
    expect_refusal(run_cli("scan " + quote(d / "traces") + " --db " + quote(db)), db, what);
    expect_refusal(run_cli("report --db " + quote(db)), db, what);
    expect_refusal(run_cli("merge " + quote(d / "out.sqlite") + " " + quote(db)), db, what);
    EXPECT_EQ(folder_state(store), before);
    EXPECT_FALSE(fs::exists(d / "out.sqlite"));
  }
}

TEST(StoreVersion, AStoreWhoseVersionDoesNotMatchItsTablesIsOneLine) {
  scratch_dir d("version_mismatch");
  generate_job(d / "traces", 1, 1);
  auto const db = d / "r.sqlite";
  fleet::results_store::create_at_version(db.string(), 2);
  set_user_version(db, 1);  // version 2's tables, stamped 1
  auto const before = folder_state(d.path());
  auto const r = run_cli("scan " + quote(d / "traces") + " --db " + quote(db));
  expect_refusal(r, db, "schema version 1 does not match its tables");
  EXPECT_EQ(folder_state(d.path()), before);
}

/// Runs `tracesweep ARGS` with the folder `ro` a read-only filesystem holding a copy of `db`
/// (when given) as ro/r.sqlite; nullopt when this machine cannot mount one (no user namespaces).
std::optional<cli_result> run_on_read_only_folder(fs::path const& ro, fs::path const& db,
                                                  std::string const& args) {
  fs::create_directories(ro);
  auto const err = ro.parent_path() / "ro.err";
  std::string script = "mount -t tmpfs tmpfs " + quote(ro) + " || exit 99; ";
  if (!db.empty()) script += "cp " + quote(db) + " " + quote(ro / "r.sqlite") + " || exit 99; ";
  script += "mount -o remount,ro " + quote(ro) + " || exit 99; exec '" + tracesweep_binary() +
            "' " + args;
  auto const status = std::system(
      ("unshare -rm sh -c " + quote(script) + " >/dev/null 2>" + quote(err) + " </dev/null")
          .c_str());
  cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  if (r.exit_code == 99 || r.err.find("unshare") != std::string::npos) return std::nullopt;
  return r;
}

TEST(StoreMessages, AStoreOnAReadOnlyFilesystemSaysWalNeedsAWritableFolder) {
  scratch_dir d("read_only");
  generate_job(d / "traces", 1, 1);
  auto const db = d / "r.sqlite";
  ASSERT_EQ(run_cli("scan " + quote(d / "traces") + " --db " + quote(db)).exit_code, 0);
  auto const ro = d / "ro";
  auto const scan = run_on_read_only_folder(
      ro, db, "scan " + quote(d / "traces") + " --db " + quote(ro / "r.sqlite"));
  if (!scan) GTEST_SKIP() << "cannot mount a read-only filesystem here (unshare -rm)";
  expect_refusal(*scan, ro / "r.sqlite", "writable folder");
  auto const fresh = run_on_read_only_folder(
      ro, "", "scan " + quote(d / "traces") + " --db " + quote(ro / "new.sqlite"));
  ASSERT_TRUE(fresh);
  expect_refusal(*fresh, ro / "new.sqlite", "writable folder");
  auto const report = run_on_read_only_folder(ro, db, "report --db " + quote(ro / "r.sqlite"));
  ASSERT_TRUE(report);
  expect_refusal(*report, ro / "r.sqlite", "writable folder");
}

TEST(StoreMerge, AFailedMergeLeavesItsOutputAsItWas) {
  scratch_dir d("merge_fail");
  generate_job(d / "traces" / "a", 1, 1);
  generate_job(d / "more" / "b", 1, 2);
  auto const good = d / "shards" / "good.sqlite", more = d / "shards" / "more.sqlite";
  fs::create_directories(d / "shards");
  ASSERT_EQ(run_cli("scan " + quote(d / "traces") + " --db " + quote(good)).exit_code, 0);
  ASSERT_EQ(run_cli("scan " + quote(d / "more") + " --db " + quote(more)).exit_code, 0);
  auto const future = d / "shards" / "future.sqlite";
  fleet::results_store::create_at_version(future.string(), fleet::results_store::schema_version);
  set_user_version(future, 99);

  fs::create_directories(d / "out");
  auto const out = d / "out" / "merged.sqlite";
  auto const fails = run_cli("merge " + quote(out) + " " + quote(good) + " " + quote(future));
  expect_refusal(fails, future, "schema version 99");
  EXPECT_TRUE(fs::is_empty(d / "out"));  // neither OUT nor a temporary file

  ASSERT_EQ(run_cli("merge " + quote(out) + " " + quote(good)).exit_code, 0);
  auto const before = folder_state(d / "out");
  auto const again = run_cli("merge " + quote(out) + " " + quote(more) + " " + quote(future));
  expect_refusal(again, future, "schema version 99");
  EXPECT_EQ(folder_state(d / "out"), before);
  EXPECT_EQ(sql_value(out, "SELECT count(*) FROM jobs"), "1");
  auto const adds = run_cli("merge " + quote(out) + " " + quote(more));
  EXPECT_EQ(adds.exit_code, 0) << adds.err;
  EXPECT_EQ(sql_value(out, "SELECT count(*) FROM jobs"), "2");
}

TEST(StoreDamage, ARowNamingATraceItsJobDoesNotHoldIsOneLine) {
  // The fuzz target's input (a store whose gaps index misses a row, so the gaps of the job
  // name trace_id -6): diff and merge load every job and threw std::out_of_range (terminate).
  scratch_dir d("damaged");
  auto const db = d / "damaged.sqlite";
  fs::copy_file(fs::path(TRACESWEEP_SOURCE_DIR) /
                    "tests/fuzz/regressions/fuzz_results_store/gaps-trace-id-outside-the-job",
                db);
  auto const what = "gaps names trace_id -6, which its job's traces do not hold";
  expect_refusal(run_cli("diff --db " + quote(db) + " latest latest"), db, what);
  expect_refusal(run_cli("merge " + quote(d / "out.sqlite") + " " + quote(db)), db, what);
  EXPECT_FALSE(fs::exists(d / "out.sqlite"));
}

}  // namespace store_errors_test

}  // namespace tracesweep::test
