// SPDX-License-Identifier: Apache-2.0
// Reads integer columns of an SQLite rowid table straight from the file's b-tree pages (the
// documented SQLite file format), through a read-only memory map, without SQLite's virtual
// machine. Only for files it fully understands (rollback journal, no WAL); anything else — text
// in an integer column, a column added by ALTER TABLE with a default — is reported so the caller
// reads that range through SQL instead. Every page reference is bounds-checked: a damaged file
// throws input_error, never reads outside the map.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tracesweep::nsys {

/// One leaf page of a table b-tree and the largest rowid it can hold (from its parent's key).
struct leaf_page {
  std::uint32_t page;
  std::int64_t max_rowid;
};

/// One column value of a row: null, or an integer.
struct int_value {
  std::int64_t value = 0;
  bool null = true;
};

class sqlite_pages {
 public:
  /// Maps `path` read-only. usable() is false (and nothing is mapped) when the file is not a
  /// plain rollback-journal SQLite 3 file of a size the header agrees with.
  explicit sqlite_pages(std::string const& path);
  sqlite_pages(sqlite_pages const&) = delete;
  sqlite_pages& operator=(sqlite_pages const&) = delete;
  ~sqlite_pages();

  [[nodiscard]] bool usable() const noexcept { return _base != nullptr; }

  /// The leaf pages of the table b-tree rooted at `root`, in rowid order. Empty when `root` is
  /// not a table b-tree (WITHOUT ROWID, virtual tables: read those through SQL). Throws
  /// input_error(path, table, …) when the tree is damaged.
  [[nodiscard]] std::vector<leaf_page> leaves(std::uint32_t root, std::string const& table) const;

  /// Reads the rows with rowid in [lo, hi] of `leaves` (from leaves()), decoding the record
  /// columns `columns` (ascending positions in the table's declaration order) into `values`
  /// (row-major, columns.size() per row; a column the record lacks is null). Returns false —
  /// with `values` in an unspecified state — when a value is not an integer or null (text,
  /// blob, real): the caller then reads the range through SQL. Throws input_error when a page
  /// or record is damaged.
  [[nodiscard]] bool read(std::span<leaf_page const> leaves, std::int64_t lo, std::int64_t hi,
                          std::span<int const> columns, std::string const& table,
                          std::vector<int_value>& values) const;

 private:
  [[noreturn]] void damaged(std::string const& table, std::string const& why) const;
  [[nodiscard]] std::uint8_t const* page(std::uint32_t n, std::string const& table) const;

  std::string _path;
  std::uint8_t const* _base = nullptr;
  std::size_t _size = 0;
  std::uint32_t _page_size = 0;
  std::uint32_t _usable = 0;  ///< page size less the reserved bytes at the end of each page
  std::uint32_t _pages = 0;
};

}  // namespace tracesweep::nsys
