// SPDX-License-Identifier: Apache-2.0
// Fleet tests' helpers: a scratch directory removed at the end, SQL queries over a results
// database as text rows, generating small Kineto jobs with the CLI, and starting the CLI as a
// process of its own (concurrent scans, kill -9, the scan's pause hook).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"

extern char** environ;

namespace tracesweep::test {

/// A fresh directory under the temp dir, removed with its contents on destruction.
class scratch_dir {
 public:
  explicit scratch_dir(std::string const& tag) {
    _path = std::filesystem::temp_directory_path() /
            ("ts_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()));
    std::filesystem::remove_all(_path);
    std::filesystem::create_directories(_path);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(_path, ec);
  }
  scratch_dir(scratch_dir const&) = delete;
  scratch_dir& operator=(scratch_dir const&) = delete;
  [[nodiscard]] std::filesystem::path const& path() const { return _path; }
  [[nodiscard]] std::filesystem::path operator/(std::string const& s) const { return _path / s; }

 private:
  std::filesystem::path _path;
};

/// The rows of `sql` over the database at `db`, each row's columns joined by '|' (NULL: "∅").
inline std::vector<std::string> sql_rows(std::filesystem::path const& db, std::string const& sql) {
  sqlite3* h = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db;
    sqlite3_close(h);
    return out;
  }
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &q, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(h);
    sqlite3_close(h);
    return out;
  }
  while (sqlite3_step(q) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(q); ++c) {
      if (c) row += '|';
      auto const* t = reinterpret_cast<char const*>(sqlite3_column_text(q, c));
      row += t ? t : "∅";
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return out;
}

/// The single value of `sql`.
inline std::string sql_value(std::filesystem::path const& db, std::string const& sql) {
  auto const rows = sql_rows(db, sql);
  if (rows.size() == 1) return rows.front();
  std::string out(1, '(');  // (appended: GCC 12 warns falsely on "(" + s)
  return out.append(std::to_string(rows.size())).append(" rows)");
}

/// Writes a Kineto JSON job of `ranks` rank files (rank-N.json) into `dir` with the CLI's
/// generator; `extra` adds generator options.
inline void generate_job(std::filesystem::path const& dir, int ranks, std::uint64_t seed,
                         int steps = 2, std::string const& extra = "") {
  std::filesystem::create_directories(dir);
  std::string args = "generate --format kineto-json --ranks ";
  args += std::to_string(ranks);
  args += " --steps " + std::to_string(steps) + " --seed " + std::to_string(seed) + " " + extra;
  args += " -o " + quote(dir.string() + "/");
  auto const r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

/// Starts `tracesweep args…` without waiting (stdout to /dev/null, stderr to `err`), with the
/// test process's environment; returns its pid.
inline pid_t spawn_cli(std::vector<std::string> const& args,
                       std::filesystem::path const& err = "/dev/null") {
  std::vector<std::string> argv_s{tracesweep_binary()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// Waits for `pid`: its exit code, or 128 + the signal that ended it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Waits until `file` exists while `pid` runs: false when the process ended first or after
/// `seconds`.
inline bool wait_for_file(std::filesystem::path const& file, pid_t pid, int seconds = 60) {
  auto const give_up = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < give_up) {
    if (std::filesystem::exists(file)) return true;
    siginfo_t info{};  // (WNOWAIT: the exit is left for wait_exit)
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace tracesweep::test
