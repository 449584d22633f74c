// SPDX-License-Identifier: Apache-2.0
// Discovers which nsys tables and columns an export has (sqlite_master, PRAGMA table_info):
// the reader adapts to what is there instead of trusting a schema version number.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

class export_schema {
 public:
  /// Reads the table list and the columns of every table the reader may use.
  explicit export_schema(connection& db);

  [[nodiscard]] bool has_table(std::string const& table) const;
  [[nodiscard]] bool has_column(std::string const& table, std::string const& column) const;
  /// True when the column is declared NOT NULL (SQLite then never returns NULL for it).
  [[nodiscard]] bool is_not_null(std::string const& table, std::string const& column) const;
  /// True when at least one table only an nsys export has is present.
  [[nodiscard]] bool looks_like_nsys() const;

 private:
  std::map<std::string, std::vector<std::string>> _columns;   // table → columns
  std::map<std::string, std::vector<std::string>> _not_null;  // table → NOT NULL columns
};

/// The first and last rowid of `table`, or nothing when it is empty. Walks the rowid b-tree's
/// two ends (ORDER BY rowid LIMIT 1), no aggregate.
[[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> rowid_bounds(
    connection& db, std::string const& table);

}  // namespace tracesweep::nsys
