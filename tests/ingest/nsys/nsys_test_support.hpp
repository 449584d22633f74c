// SPDX-License-Identifier: Apache-2.0
// Helpers for the nsys tests: the real exports in the shared traces folder, reading one, a small
// sqlite3 wrapper for oracle queries, a CSV parser and a file checksum.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include "support/csv.hpp"

namespace tracesweep::test {

/// Every .sqlite file under `traces/nsys`, sorted.
inline std::vector<std::filesystem::path> nsys_exports(std::filesystem::path const& traces) {
  std::vector<std::filesystem::path> out;
  for (auto const& e : std::filesystem::recursive_directory_iterator(traces / "nsys"))
    if (e.is_regular_file() && e.path().extension() == ".sqlite") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Built-in memcpy labels for exports without ENUM_CUDA_MEMCPY_OPER (before 2023).
inline constexpr char const* builtin_memcpy_enum =
    "enum_memcpy(id, label) AS (VALUES (0,'Unknown'),(1,'Host-to-Device'),(2,'Device-to-Host'),"
    "(3,'Host-to-Array'),(4,'Array-to-Host'),(5,'Array-to-Array'),(6,'Array-to-Device'),"
    "(7,'Device-to-Array'),(8,'Device-to-Device'),(9,'Host-to-Host'),(10,'Peer-to-Peer'),"
    "(11,'Unified Host-to-Device'),(12,'Unified Device-to-Host'),(13,'Unified Device-to-Device'))";

/// Built-in memory-kind labels for exports without ENUM_CUDA_MEM_KIND (before 2023).
inline constexpr char const* builtin_memory_kind_enum =
    "enum_memkind(id, label) AS (VALUES (0,'Pageable'),(1,'Pinned'),(2,'Device'),(3,'Array'),"
    "(4,'Managed'),(5,'Device Static'),(6,'Managed Static'),(7,'Unknown'))";

/// `f` read into a new table with `threads` threads and the other options of `o`.
inline event_table read_export(std::filesystem::path const& f, unsigned threads,
                               read_options o = {}) {
  o.threads = threads;
  event_table t;
  read_input(f.string(), t, o);
  return t;
}

/// A cell of an oracle query: NULL, integer, real or text.
struct sql_value {
  int type = SQLITE_NULL;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
};

/// One SQLite connection for the test's own queries (read-only unless `writable`).
class oracle_db {
 public:
  explicit oracle_db(std::filesystem::path const& path, bool writable = false) {
    std::string const uri = "file:" + path.string() + (writable ? "" : "?immutable=1");
    int const flags =
        (writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
        SQLITE_OPEN_URI;
    if (sqlite3_open_v2(uri.c_str(), &_db, flags, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path.string());
  }
  oracle_db(oracle_db const&) = delete;
  oracle_db& operator=(oracle_db const&) = delete;
  ~oracle_db() { sqlite3_close(_db); }

  std::vector<std::vector<sql_value>> query(std::string const& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("oracle SQL: ") + sqlite3_errmsg(_db) + "\n" + sql);
    std::vector<std::vector<sql_value>> rows;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      auto& row = rows.emplace_back();
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        sql_value v;
        v.type = sqlite3_column_type(s, c);
        v.i = sqlite3_column_int64(s, c);
        v.d = sqlite3_column_double(s, c);
        if (auto const* t = sqlite3_column_text(s, c)) v.s = reinterpret_cast<char const*>(t);
        row.push_back(std::move(v));
      }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
      throw std::runtime_error(std::string("oracle SQL: ") + sqlite3_errmsg(_db));
    return rows;
  }
  void exec(std::string const& sql) {
    if (sqlite3_exec(_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("oracle SQL: ") + sqlite3_errmsg(_db) + "\n" + sql);
  }
  bool has_table(std::string const& t) {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '" + t + "'")
                .empty();
  }
  bool has_column(std::string const& t, std::string const& c) {
    return !query("SELECT 1 FROM pragma_table_info('" + t + "') WHERE name = '" + c + "'").empty();
  }

 private:
  sqlite3* _db = nullptr;
};

/// FNV-1a 64 of a file's bytes (with its size), to show a file was not modified.
inline std::uint64_t file_checksum(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  std::uint64_t h = 1469598103934665603ull;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i)
      h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    if (!in) break;
  }
  return h ^ std::filesystem::file_size(p);
}

/// The `n`-byte big-endian integer at `at` of a file's bytes (SQLite's page fields).
inline std::size_t big_endian(std::string const& bytes, std::size_t at, int n) {
  std::size_t v = 0;
  for (int i = 0; i < n; ++i)
    v = v << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

/// A fresh, empty temporary directory, removed on destruction.
class temp_dir {
 public:
  explicit temp_dir(std::string const& tag) {
    _path = std::filesystem::temp_directory_path() /
            ("tracesweep_" + tag + "_" + std::to_string(::getpid()) + "_" +
             std::to_string(std::rand()));
    std::filesystem::create_directories(_path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(_path, ec);
  }
  [[nodiscard]] std::filesystem::path const& path() const { return _path; }

 private:
  std::filesystem::path _path;
};

}  // namespace tracesweep::test
