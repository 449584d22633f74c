// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/sqlite_btree.hpp"

#include <algorithm>

#include "ingest/nsys/sqlite_record.hpp"

namespace tracesweep::nsys {

namespace {

constexpr std::uint8_t interior_table_page = 0x05;
constexpr std::uint8_t leaf_table_page = 0x0D;
/// SQLite's own limit on a B-tree's depth (BTCURSOR_MAX_DEPTH).
constexpr std::size_t max_depth = 20;

}  // namespace

table_cursor::table_cursor(page_reader& pages, std::int64_t root, std::int64_t lo) : _pages(pages) {
  seek(root, lo);
}

table_cursor::page_view table_cursor::load(std::int64_t number) {
  // Every page is read at most once per walk of a well-formed tree: more visits than pages is a
  // cycle.
  if (++_visits > _pages.page_count()) throw page_format_error("b-tree cycle");
  page_view p;
  p.bytes = _pages.page(number).first(_pages.usable_size());
  std::uint32_t const header = number == 1 ? 100 : 0;  // page 1 starts with the file header
  auto const* h = p.bytes.data() + header;
  if (h[0] != interior_table_page && h[0] != leaf_table_page)
    throw page_format_error("not a table b-tree page");
  p.leaf = h[0] == leaf_table_page;
  p.cells = big_endian16(h + 3);
  p.pointers = header + (p.leaf ? 8 : 12);
  if (!p.leaf) p.right = big_endian32(h + 8);
  if (p.pointers + 2 * std::uint64_t{p.cells} > p.bytes.size())
    throw page_format_error("cell count");
  return p;
}

std::uint32_t table_cursor::cell_offset(page_view const& p, std::uint32_t i) const {
  std::uint32_t const at = big_endian16(p.bytes.data() + p.pointers + 2 * i);
  // A cell lies after the pointer array and leaves room for at least its first bytes.
  if (at < p.pointers + 2 * p.cells || at + 4 > p.bytes.size()) throw page_format_error("cell");
  return at;
}

std::int64_t table_cursor::leaf_rowid(page_view const& p, std::uint32_t i) const {
  auto const* const end = p.bytes.data() + p.bytes.size();
  auto const* c = p.bytes.data() + cell_offset(p, i);
  std::uint64_t payload = 0, rowid = 0;
  auto n = read_varint(c, end, payload);
  if (n == 0 || read_varint(c + n, end, rowid) == 0) throw page_format_error("leaf cell");
  return static_cast<std::int64_t>(rowid);
}

std::int64_t table_cursor::interior_key(page_view const& p, std::uint32_t i) const {
  auto const* const end = p.bytes.data() + p.bytes.size();
  std::uint64_t key = 0;
  if (read_varint(p.bytes.data() + cell_offset(p, i) + 4, end, key) == 0)
    throw page_format_error("interior cell");
  return static_cast<std::int64_t>(key);
}

std::uint32_t table_cursor::left_child(page_view const& p, std::uint32_t i) const {
  return big_endian32(p.bytes.data() + cell_offset(p, i));
}

std::uint32_t table_cursor::child_of(page_view const& p, std::uint32_t i) const {
  return i < p.cells ? left_child(p, i) : p.right;
}

void table_cursor::push(page_view const& p, std::uint32_t child) {
  if (_depth == max_depth) throw page_format_error("b-tree depth");
  if (_path.size() == _depth) _path.emplace_back();
  auto& f = _path[_depth++];
  f.bytes.assign(p.bytes.begin(), p.bytes.end());
  f.view = p;
  f.view.bytes = f.bytes;
  f.child = child;
}

void table_cursor::seek(std::int64_t number, std::int64_t lo) {
  for (;;) {
    auto const p = load(number);
    // The first cell whose key (interior: the largest rowid of its left subtree) reaches lo.
    std::uint32_t first = 0, count = p.cells;
    while (count > 0) {
      auto const half = count / 2;
      auto const key = p.leaf ? leaf_rowid(p, first + half) : interior_key(p, first + half);
      if (key < lo) {
        first += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    if (p.leaf) {
      _leaf = p;
      _cell = first;
      return;
    }
    push(p, first);
    number = child_of(p, first);
  }
}

bool table_cursor::next_leaf() {
  while (_depth > 0) {
    auto& top = _path[_depth - 1];
    if (top.child < top.view.cells) {
      ++top.child;
      seek(child_of(top.view, top.child), INT64_MIN);
      return true;
    }
    --_depth;
  }
  return false;
}

bool table_cursor::next(table_cell& cell) {
  while (_cell >= _leaf.cells)
    if (!next_leaf()) return false;
  auto const* const end = _leaf.bytes.data() + _leaf.bytes.size();
  auto const* c = _leaf.bytes.data() + cell_offset(_leaf, _cell++);
  std::uint64_t payload = 0, rowid = 0;
  auto const a = read_varint(c, end, payload);
  auto const b = a == 0 ? 0 : read_varint(c + a, end, rowid);
  if (b == 0) throw page_format_error("leaf cell");
  // A payload longer than usable size − 35 continues on overflow pages.
  if (payload > _pages.usable_size() - 35) throw page_format_error("overflow payload");
  auto const* data = c + a + b;
  if (payload > static_cast<std::uint64_t>(end - data)) throw page_format_error("payload");
  cell.rowid = static_cast<std::int64_t>(rowid);
  if (_any && cell.rowid <= _last_rowid) throw page_format_error("rowids out of order");
  _any = true;
  _last_rowid = cell.rowid;
  cell.payload = {data, static_cast<std::size_t>(payload)};
  return true;
}

}  // namespace tracesweep::nsys
