// SPDX-License-Identifier: Apache-2.0
// Thin RAII wrappers over the sqlite3 C API for reading nsys exports: a read-only connection
// and a prepared statement. Every SQLite failure becomes an input_error naming the file. A
// connection reads a file, or a database image in memory (SQLite's memdb VFS).
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <span>
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

/// What a reader's connections open: the file `path`, or, when `memdb` is not empty, the shared
/// in-memory database of that name (memdb VFS, a name starting with '/') holding an image of a
/// file; `path` then only names it in errors.
struct db_location {
  std::string path;
  std::string memdb;
  std::span<std::byte const> image;  ///< the image's bytes, when memdb names one
};

/// One read-only connection. `immutable` opens through `file:PATH?immutable=1` (no locks, no
/// journal lookups: the file is only ever read); otherwise a plain read-only open that takes
/// ordinary shared locks.
class connection {
 public:
  connection(std::string const& path, bool immutable);
  /// An immutable connection to the file, or a read-only one to the in-memory image.
  explicit connection(db_location const& where);
  connection(connection const&) = delete;
  connection& operator=(connection const&) = delete;
  ~connection();

  [[nodiscard]] sqlite3* get() const noexcept { return _db; }
  [[nodiscard]] std::string const& path() const noexcept { return _path; }
  /// Runs statements that return no rows we need (PRAGMAs, BEGIN).
  void exec(std::string const& sql, std::string const& where);

 private:
  void open(std::string const& uri);

  std::string _path;
  sqlite3* _db = nullptr;
};

/// Quotes an identifier for SQL ("end" is a keyword).
[[nodiscard]] std::string quote_identifier(std::string_view name);

}  // namespace tracesweep::nsys
