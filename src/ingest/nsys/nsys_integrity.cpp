// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_integrity.hpp"

#include <string>

#include <tracesweep/error.hpp>

namespace tracesweep::nsys {

namespace {

std::int64_t pragma_value(connection& db, char const* pragma) {
  statement s(db.get(), db.path(), "integrity", std::string("PRAGMA ") + pragma);
  return s.step() ? sqlite3_column_int64(s.get(), 0) : -1;
}

}  // namespace

void check_integrity(connection& db, std::uint64_t bytes, bool rows_consistent) {
  auto const pages = pragma_value(db, "page_count");
  auto const page_size = pragma_value(db, "page_size");
  bool const size_consistent =
      pages >= 0 && page_size > 0 &&
      static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) == bytes;
  if (bytes > always_check_bytes && size_consistent && rows_consistent) return;
  statement check(db.get(), db.path(), "integrity", "PRAGMA quick_check(1)");
  if (!check.step()) return;
  auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(check.get(), 0));
  std::string result = text ? text : "";
  if (result == "ok") return;
  std::string const banner = "*** in database main ***";
  if (result.starts_with(banner)) result.erase(0, result.find_first_not_of(" \n", banner.size()));
  throw input_error(db.path(), "integrity",
                    "damaged SQLite file (PRAGMA quick_check: " + result + ")");
}

}  // namespace tracesweep::nsys
