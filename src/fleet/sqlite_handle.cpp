// SPDX-License-Identifier: Apache-2.0
// The results store's SQLite connection and statements; SQLite's reasons turned into one-line
// input_errors, with what a failure to open means when the database's folder is not writable.
#include "fleet/sqlite_handle.hpp"

#include <unistd.h>

#include <filesystem>

#include <tracesweep/error.hpp>
#include <tracesweep/output/safe_text.hpp>

namespace tracesweep::fleet {

namespace {

/// SQLite's reason `why` for `rc`; when the database could not be opened or written and its
/// folder is not writable, says why that matters: WAL keeps FILE-wal and FILE-shm beside the
/// database, even to read it.
std::string with_folder_hint(std::string const& path, int rc, std::string why) {
  int const primary = rc & 0xff;
  if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) return why;
  auto const folder = std::filesystem::absolute(path).parent_path();
  if (::access(folder.c_str(), W_OK) == 0) return why;
  return why + " (the folder " + folder.string() +
         " is not writable: a results database in WAL mode needs a writable folder beside it, "
         "for its -wal and -shm files)";
}

}  // namespace

sqlite_handle::sqlite_handle(std::string path, bool read_only) : _path(std::move(path)) {
  int const flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int const rc = sqlite3_open_v2(_path.c_str(), &_db, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    // A handle is returned even when the open fails, and must be closed: after the message is
    // taken from it, while fail's exception leaves.
    struct closer {
      sqlite3*& db;
      ~closer() {
        sqlite3_close_v2(db);
        db = nullptr;
      }
    } const close_it{_db};
    fail(rc, "opening the database");
  }
  sqlite3_busy_timeout(_db, 60'000);
  sqlite3_extended_result_codes(_db, 1);
}

sqlite_handle::~sqlite_handle() {
  sqlite3_close_v2(_db);
}

void sqlite_handle::fail(int rc, std::string const& what) const {
  std::string why = _db ? sqlite3_errmsg(_db) : sqlite3_errstr(rc);
  if (why.empty() || why == "not an error") why = sqlite3_errstr(rc);
  throw input_error(_path, what, with_folder_hint(_path, rc, why));
}

void sqlite_handle::exec(std::string const& sql) {
  char* message = nullptr;
  int const rc = sqlite3_exec(_db, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return;
  std::string why = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  throw input_error(_path, "results database", with_folder_hint(_path, rc, why));
}

sql_statement::sql_statement(sqlite_handle const& db, std::string const& sql) : _db(db) {
  int const rc = sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &_stmt, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, "results database");
}

sql_statement::~sql_statement() {
  sqlite3_finalize(_stmt);
}

sql_statement& sql_statement::bind(int i, std::int64_t v) {
  sqlite3_bind_int64(_stmt, i, v);
  return *this;
}
sql_statement& sql_statement::bind(int i, double v) {
  sqlite3_bind_double(_stmt, i, v);
  return *this;
}
sql_statement& sql_statement::bind(int i, std::string const& v) {
  auto const text = output::valid_utf8(v);  // SQLite TEXT is UTF-8: names from traces may not be
  sqlite3_bind_text(_stmt, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}
sql_statement& sql_statement::bind_null(int i) {
  sqlite3_bind_null(_stmt, i);
  return *this;
}

bool sql_statement::step() {
  int const rc = sqlite3_step(_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  _db.fail(rc, "results database");
}

void sql_statement::run() {
  while (step()) {
  }
  reset();
}

void sql_statement::reset() {
  sqlite3_reset(_stmt);
  sqlite3_clear_bindings(_stmt);
}

std::int64_t sql_statement::integer(int col) const {
  return sqlite3_column_int64(_stmt, col);
}
double sql_statement::real(int col) const {
  return sqlite3_column_double(_stmt, col);
}
std::string sql_statement::text(int col) const {
  auto const* p = reinterpret_cast<char const*>(sqlite3_column_text(_stmt, col));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(_stmt, col))) : "";
}
bool sql_statement::is_null(int col) const {
  return sqlite3_column_type(_stmt, col) == SQLITE_NULL;
}

}  // namespace tracesweep::fleet
