// SPDX-License-Identifier: Apache-2.0
// The results store's SQLite access: one read-write connection and prepared statements with
// typed binds and columns. Every SQLite failure throws input_error naming the database file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

namespace tracesweep::fleet {

class sqlite_handle {
 public:
  /// Opens (creating unless `read_only`) the database at `path`.
  sqlite_handle(std::string path, bool read_only);
  sqlite_handle(sqlite_handle const&) = delete;
  sqlite_handle& operator=(sqlite_handle const&) = delete;
  ~sqlite_handle();

  [[nodiscard]] sqlite3* get() const noexcept { return _db; }
  [[nodiscard]] std::string const& path() const noexcept { return _path; }
  /// Runs statements that return no rows.
  void exec(std::string const& sql);
  /// Throws input_error for `rc` with SQLite's message.
  [[noreturn]] void fail(int rc, std::string const& what) const;

 private:
  std::string _path;
  sqlite3* _db = nullptr;
};

/// A prepared statement. Binds are 1-based, columns 0-based, as in SQLite.
class sql_statement {
 public:
  sql_statement(sqlite_handle const& db, std::string const& sql);
  sql_statement(sql_statement const&) = delete;
  sql_statement& operator=(sql_statement const&) = delete;
  ~sql_statement();

  sql_statement& bind(int i, std::int64_t v);
  sql_statement& bind(int i, double v);
  /// Binds `v` as TEXT, valid UTF-8 (bytes that are not become U+FFFD, as in every output).
  sql_statement& bind(int i, std::string const& v);
  sql_statement& bind_null(int i);
  /// Binds `v`, or null when `v` is negative (a rank or device that is not one).
  sql_statement& bind_or_null(int i, std::int64_t v) { return v < 0 ? bind_null(i) : bind(i, v); }
  /// Steps once: true when a row is ready; throws on error.
  bool step();
  /// Steps to the end (an INSERT or UPDATE) and resets for the next binds.
  void run();
  void reset();

  [[nodiscard]] std::int64_t integer(int col) const;
  [[nodiscard]] double real(int col) const;
  [[nodiscard]] std::string text(int col) const;
  [[nodiscard]] bool is_null(int col) const;

 private:
  sqlite_handle const& _db;
  sqlite3_stmt* _stmt = nullptr;
};

}  // namespace tracesweep::fleet
