// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/sqlite_db.hpp"

#include <tracesweep/error.hpp>

namespace tracesweep::nsys {

namespace {

std::string uri_escape(std::string const& path) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char const c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7F) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string explain(int rc, sqlite3* db) {
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "the file is locked by a writer (another process is writing it); try again when "
             "the writer has finished";
    case SQLITE_NOTADB:
      return "not an SQLite database (damaged or interrupted export)";
    case SQLITE_CORRUPT:
      return "damaged SQLite file (truncated or corrupt): " +
             std::string(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    case SQLITE_READONLY:
      return "the file has an unfinished write (hot journal) that must be rolled back first";
    default:
      return db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  }
}

}  // namespace

void throw_sqlite(std::string const& path, std::string const& where, int rc, sqlite3* db) {
  throw input_error(path, where, explain(rc, db));
}

statement::statement(sqlite3* db, std::string const& path, std::string const& where,
                     std::string const& sql)
    : _db(db), _path(path), _where(where) {
  int const rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &_stmt, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(path, where, rc, db);
}

statement::~statement() {
  sqlite3_finalize(_stmt);
}

bool statement::step() {
  int const rc = sqlite3_step(_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(_path, _where, rc, _db);
}

void statement::bind(int index, std::int64_t value) {
  int const rc = sqlite3_bind_int64(_stmt, index, value);
  if (rc != SQLITE_OK) throw_sqlite(_path, _where, rc, _db);
}

connection::connection(std::string const& path, bool immutable) : _path(path) {
  open("file:" + uri_escape(path) + (immutable ? "?immutable=1" : "?mode=ro"));
}

connection::connection(db_location const& where) : _path(where.path) {
  if (where.memdb.empty())
    open("file:" + uri_escape(where.path) + "?immutable=1");
  else
    open("file:" + uri_escape(where.memdb) + "?vfs=memdb");
}

void connection::open(std::string const& uri) {
  int const rc = sqlite3_open_v2(
      uri.c_str(), &_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = explain(rc, _db);
    sqlite3_close(_db);
    _db = nullptr;
    throw input_error(_path, "open", why);
  }
}

connection::~connection() {
  sqlite3_close(_db);
}

void connection::exec(std::string const& sql, std::string const& where) {
  int const rc = sqlite3_exec(_db, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(_path, where, rc, _db);
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (char const c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace tracesweep::nsys
