// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/sqlite_pages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <tracesweep/error.hpp>

namespace tracesweep::nsys {

namespace {

constexpr std::uint8_t interior_table = 5;
constexpr std::uint8_t leaf_table = 13;
constexpr std::uint8_t interior_index = 2;
constexpr std::uint8_t leaf_index = 10;
constexpr int max_depth = 40;

std::uint32_t be16(std::uint8_t const* p) {
  return static_cast<std::uint32_t>(p[0]) << 8 | p[1];
}
std::uint32_t be32(std::uint8_t const* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

/// SQLite varint (1–9 bytes, big-endian, 7 bits per byte, all 8 in the ninth) from [p, end).
/// Returns the byte count, 0 when it runs past `end`.
int get_varint(std::uint8_t const* p, std::uint8_t const* end, std::uint64_t& v) {
  v = 0;
  for (int i = 0; i < 8; ++i) {
    if (p + i >= end) return 0;
    v = (v << 7) | (p[i] & 0x7F);
    if (!(p[i] & 0x80)) return i + 1;
  }
  if (p + 8 >= end) return 0;
  v = (v << 8) | p[8];
  return 9;
}

/// Bytes a value of serial type `t` occupies in the record body; -1 for the reserved types.
std::int64_t serial_size(std::uint64_t t) {
  static constexpr std::int64_t small[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};
  if (t < 12) return small[t];
  return static_cast<std::int64_t>((t - 12) / 2);
}

/// A big-endian two's-complement integer of `n` bytes (1–8).
std::int64_t signed_be(std::uint8_t const* p, int n) {
  std::uint64_t v = (p[0] & 0x80) ? ~std::uint64_t{0} : 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return static_cast<std::int64_t>(v);
}

}  // namespace

sqlite_pages::sqlite_pages(std::string const& path) : _path(path) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 100) {
    ::close(fd);
    return;
  }
  auto const size = static_cast<std::size_t>(st.st_size);
  void* const map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return;
  auto const* h = static_cast<std::uint8_t const*>(map);
  std::uint32_t page_size = be16(h + 16);
  if (page_size == 1) page_size = 65536;
  bool const ok = std::memcmp(h, "SQLite format 3", 16) == 0 && page_size >= 512 &&
                  (page_size & (page_size - 1)) == 0 && h[18] == 1 && h[19] == 1 &&
                  h[20] < page_size - 480 && size % page_size == 0;
  if (!ok) {
    ::munmap(map, size);
    return;
  }
  _base = h;
  _size = size;
  _page_size = page_size;
  _usable = page_size - h[20];
  _pages = static_cast<std::uint32_t>(std::min<std::size_t>(size / page_size, 0xFFFF'FFFFu));
}

sqlite_pages::~sqlite_pages() {
  if (_base) ::munmap(const_cast<std::uint8_t*>(_base), _size);
}

void sqlite_pages::damaged(std::string const& table, std::string const& why) const {
  throw input_error(_path, table, "damaged SQLite file (truncated or corrupt): " + why);
}

std::uint8_t const* sqlite_pages::page(std::uint32_t n, std::string const& table) const {
  if (n == 0 || n > _pages) damaged(table, "page " + std::to_string(n) + " is outside the file");
  return _base + static_cast<std::size_t>(n - 1) * _page_size;
}

std::vector<leaf_page> sqlite_pages::leaves(std::uint32_t root, std::string const& table) const {
  std::vector<leaf_page> out;
  if (!_base) return out;
  struct pending {
    std::uint32_t page;
    std::int64_t max_rowid;
    int depth;
  };
  std::vector<pending> stack{{root, INT64_MAX, 0}};
  std::size_t visited = 0;
  std::vector<pending> children;
  while (!stack.empty()) {
    auto const [n, max_rowid, depth] = stack.back();
    stack.pop_back();
    if (++visited > _pages || depth > max_depth) damaged(table, "b-tree has a cycle");
    auto const* p = page(n, table);
    auto const* h = p + (n == 1 ? 100 : 0);
    if (h[0] == leaf_table) {
      out.push_back({n, max_rowid});
      continue;
    }
    if (h[0] == interior_index || h[0] == leaf_index) {
      if (n == root) return {};  // WITHOUT ROWID: not a table b-tree
      damaged(table, "index page inside a table b-tree");
    }
    if (h[0] != interior_table) damaged(table, "page " + std::to_string(n) + " has a bad type");
    std::uint32_t const cells = be16(h + 3);
    auto const* end = p + _usable;
    if (h + 12 + 2 * cells > end) damaged(table, "cell count exceeds the page");
    children.clear();
    for (std::uint32_t c = 0; c < cells; ++c) {
      std::uint32_t const off = be16(h + 12 + 2 * c);
      if (off + 4 >= _usable) damaged(table, "cell outside the page");
      std::uint64_t key;
      if (!get_varint(p + off + 4, end, key)) damaged(table, "cell outside the page");
      children.push_back({be32(p + off), static_cast<std::int64_t>(key), depth + 1});
    }
    children.push_back({be32(h + 8), max_rowid, depth + 1});
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

bool sqlite_pages::read(std::span<leaf_page const> leaves, std::int64_t lo, std::int64_t hi,
                        std::span<int const> columns, std::string const& table,
                        std::vector<int_value>& values) const {
  if (columns.empty()) return false;
  int const last_column = columns.back();
  auto first = std::lower_bound(leaves.begin(), leaves.end(), lo,
                                [](leaf_page const& l, std::int64_t v) { return l.max_rowid < v; });
  std::vector<std::uint8_t> spill;  // a payload that continues on overflow pages
  std::uint32_t const max_local = _usable - 35;
  std::uint32_t const min_local = (_usable - 12) * 32 / 255 - 23;
  for (auto leaf = first; leaf != leaves.end(); ++leaf) {
    auto const* p = page(leaf->page, table);
    auto const* h = p + (leaf->page == 1 ? 100 : 0);
    if (h[0] != leaf_table) damaged(table, "leaf page changed type");
    std::uint32_t const cells = be16(h + 3);
    auto const* page_end = p + _usable;
    if (h + 8 + 2 * cells > page_end) damaged(table, "cell count exceeds the page");
    for (std::uint32_t c = 0; c < cells; ++c) {
      std::uint32_t const off = be16(h + 8 + 2 * c);
      if (off >= _usable) damaged(table, "cell outside the page");
      auto const* cell = p + off;
      std::uint64_t payload_size, rowid_bits;
      int const a = get_varint(cell, page_end, payload_size);
      int const b = a ? get_varint(cell + a, page_end, rowid_bits) : 0;
      if (!b) damaged(table, "cell outside the page");
      auto const rowid = static_cast<std::int64_t>(rowid_bits);
      if (rowid < lo) continue;
      if (rowid > hi) return true;
      if (payload_size > _size) damaged(table, "record larger than the file");
      auto const* payload = cell + a + b;
      auto const size = static_cast<std::uint32_t>(payload_size);
      if (size > max_local) {
        // Local part, then a chain of overflow pages (4-byte next pointer, usable − 4 bytes).
        std::uint32_t local = min_local + (size - min_local) % (_usable - 4);
        if (local > max_local) local = min_local;
        if (payload + local + 4 > page_end) damaged(table, "record outside the page");
        spill.assign(payload, payload + local);
        std::uint32_t next = be32(payload + local);
        std::size_t hops = 0;
        while (spill.size() < size) {
          if (next == 0 || ++hops > _pages) damaged(table, "broken overflow chain");
          auto const* o = page(next, table);
          auto const take = std::min<std::size_t>(size - spill.size(), _usable - 4);
          spill.insert(spill.end(), o + 4, o + 4 + take);
          next = be32(o);
        }
        payload = spill.data();
      } else if (payload + size > page_end) {
        damaged(table, "record outside the page");
      }
      auto const* rec_end = payload + size;
      std::uint64_t header_size;
      int const hn = get_varint(payload, rec_end, header_size);
      if (!hn || header_size > size) damaged(table, "bad record header");
      auto const* type_at = payload + hn;
      auto const* header_end = payload + header_size;
      auto const* body = header_end;
      std::size_t want = 0;
      for (int col = 0; col <= last_column; ++col) {
        if (type_at >= header_end) {  // the record ends before this column: NULL
          for (; want < columns.size(); ++want) values.push_back({});
          break;
        }
        std::uint64_t t = *type_at;
        if (t < 0x80) {  // every integer serial type is one byte
          ++type_at;
        } else {
          int const tn = get_varint(type_at, header_end, t);
          if (!tn) damaged(table, "bad record header");
          type_at += tn;
        }
        auto const bytes = serial_size(t);
        if (bytes < 0 || body + bytes > rec_end) damaged(table, "bad record");
        if (col == columns[want]) {
          if (t == 0) {
            values.push_back({});
          } else if (t <= 6) {
            values.push_back({signed_be(body, static_cast<int>(bytes)), false});
          } else if (t == 8 || t == 9) {
            values.push_back({static_cast<std::int64_t>(t - 8), false});
          } else {
            return false;  // real, text or blob: let SQLite convert it
          }
          if (++want == columns.size()) break;
        }
        body += bytes;
      }
    }
    if (leaf->max_rowid >= hi) break;
  }
  return true;
}

}  // namespace tracesweep::nsys
