// SPDX-License-Identifier: Apache-2.0
// Thin RAII wrappers over the sqlite3 C API for reading nsys exports: a read-only connection
// and a prepared statement. Every SQLite failure becomes an input_error naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tracesweep::nsys {

/// Throws input_error(path, where, why) with SQLite's message folded into `why`.
[[noreturn]] void throw_sqlite(std::string const& path, std::string const& where, int rc,
                               sqlite3* db);

/// A prepared statement; finalized on destruction.
class statement {
 public:
  statement(sqlite3* db, std::string const& path, std::string const& where, std::string const& sql);
  statement(statement const&) = delete;
  statement& operator=(statement const&) = delete;
  ~statement();

  /// Steps once: true when a row is ready, false when done; throws on error.
  bool step();
  [[nodiscard]] sqlite3_stmt* get() const noexcept { return _stmt; }
  void bind(int index, std::int64_t value);

 private:
  sqlite3* _db;
  sqlite3_stmt* _stmt = nullptr;
  std::string _path;
  std::string _where;
};

/// One read-only connection. `immutable` opens through `file:PATH?immutable=1` (no locks, no
/// journal lookups: the file is only ever read); otherwise a plain read-only open that takes
/// ordinary shared locks.
class connection {
 public:
  connection(std::string const& path, bool immutable);
  connection(connection const&) = delete;
  connection& operator=(connection const&) = delete;
  ~connection();

  [[nodiscard]] sqlite3* get() const noexcept { return _db; }
  [[nodiscard]] std::string const& path() const noexcept { return _path; }
  /// Runs statements that return no rows we need (PRAGMAs, BEGIN).
  void exec(std::string const& sql, std::string const& where);

 private:
  std::string _path;
  sqlite3* _db = nullptr;
};

/// Quotes an identifier for SQL ("end" is a keyword).
[[nodiscard]] std::string quote_identifier(std::string_view name);

}  // namespace tracesweep::nsys
