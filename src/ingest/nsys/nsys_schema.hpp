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
  /// The root page of `table`'s B-tree (sqlite_master.rootpage), 0 when unknown.
  [[nodiscard]] std::int64_t root_page(std::string const& table) const;
  /// Where `column` lies in `table`'s records, when its values can be read from them as SQLite
  /// would return them: INTEGER affinity (a REAL column's integers come back as reals), a NULL
  /// default (older records may lack a column added later), not a primary key (an INTEGER
  /// PRIMARY KEY is the rowid, not in the record), in a table without hidden or generated
  /// columns (their records skip some). Nothing otherwise.
  [[nodiscard]] std::optional<int> record_column(std::string const& table,
                                                 std::string const& column) const;

 private:
  /// What the records of a table hold, column by column (record_column).
  struct record_layout {
    std::int64_t root_page = 0;
    bool plain = true;                  ///< no hidden or generated columns
    std::vector<std::string> readable;  ///< per column: its name if readable, else empty
  };

  std::map<std::string, std::vector<std::string>> _columns;   // table → columns
  std::map<std::string, std::vector<std::string>> _not_null;  // table → NOT NULL columns
  std::map<std::string, record_layout> _records;              // table → record layout
};

/// The first and last rowid of `table`, or nothing when it is empty. Walks the rowid b-tree's
/// two ends (ORDER BY rowid LIMIT 1), no aggregate.
[[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> rowid_bounds(
    connection& db, std::string const& table);

}  // namespace tracesweep::nsys
