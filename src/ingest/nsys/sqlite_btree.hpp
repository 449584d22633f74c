// SPDX-License-Identifier: Apache-2.0
// A cursor over a rowid table's B-tree read straight from its pages (sqlite_pages.hpp): rows in
// rowid order from a given rowid, each with its record (the payload) when it lies wholly on its
// leaf page. Overflow pages, index B-trees, pages that contradict their header, cycles and
// rowids out of order are page_format_errors: the caller reads those rows through SQLite.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ingest/nsys/sqlite_pages.hpp"

namespace tracesweep::nsys {

/// One row of a table B-tree leaf.
struct table_cell {
  std::int64_t rowid = 0;
  std::span<std::uint8_t const> payload;  ///< the record; valid until the cursor moves on
};

class table_cursor {
 public:
  /// Stands before the first row whose rowid is at least `lo` in the table rooted at page `root`.
  table_cursor(page_reader& pages, std::int64_t root, std::int64_t lo);

  /// Moves to the next row; false past the table's last.
  bool next(table_cell& cell);

 private:
  /// A table B-tree page: its bytes and the fields of its header.
  struct page_view {
    std::span<std::uint8_t const> bytes;
    bool leaf = false;
    std::uint32_t cells = 0;
    std::uint32_t pointers = 0;  ///< offset of the cell pointer array
    std::uint32_t right = 0;     ///< interior pages: the right-most child
  };
  /// An interior page on the path from the root, kept as a copy while its children are read.
  struct frame {
    std::vector<std::uint8_t> bytes;
    page_view view;
    std::uint32_t child = 0;  ///< the cell whose left child is being read (cells: the right-most)
  };

  page_view load(std::int64_t number);
  [[nodiscard]] std::uint32_t cell_offset(page_view const& p, std::uint32_t i) const;
  [[nodiscard]] std::int64_t leaf_rowid(page_view const& p, std::uint32_t i) const;
  [[nodiscard]] std::int64_t interior_key(page_view const& p, std::uint32_t i) const;
  [[nodiscard]] std::uint32_t left_child(page_view const& p, std::uint32_t i) const;
  [[nodiscard]] std::uint32_t child_of(page_view const& p, std::uint32_t i) const;
  void push(page_view const& p, std::uint32_t child);
  /// Descends from page `number` along the first child whose keys reach `lo`.
  void seek(std::int64_t number, std::int64_t lo);
  /// Moves to the next leaf; false when none is left.
  bool next_leaf();

  page_reader& _pages;
  std::vector<frame> _path;
  std::size_t _depth = 0;  ///< frames of _path in use (their storage is kept)
  page_view _leaf;
  std::uint32_t _cell = 0;
  std::int64_t _visits = 0;
  std::int64_t _last_rowid = 0;
  bool _any = false;
};

}  // namespace tracesweep::nsys
