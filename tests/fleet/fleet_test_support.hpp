// SPDX-License-Identifier: Apache-2.0
// Fleet tests' helpers: a scratch directory removed at the end, SQL queries over a results
// database as text rows, and generating small Kineto jobs with the CLI.
#pragma once

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"

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

}  // namespace tracesweep::test
