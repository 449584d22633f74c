// SPDX-License-Identifier: Apache-2.0
#include "ingest/nsys/nsys_strings.hpp"

#include <algorithm>

namespace tracesweep::nsys {

void string_ids::load(connection& db) {
  statement rows(db.get(), db.path(), "StringIds",
                 "SELECT id, value FROM StringIds ORDER BY rowid");
  _offsets.push_back(0);
  bool sorted = true;
  while (rows.step()) {
    std::int64_t const id = sqlite3_column_int64(rows.get(), 0);
    auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(rows.get(), 1));
    auto const len = static_cast<std::size_t>(sqlite3_column_bytes(rows.get(), 1));
    if (!_ids.empty() && id <= _ids.back()) sorted = false;
    _ids.push_back(id);
    if (text) _arena.append(text, len);
    _offsets.push_back(_arena.size());
  }
  if (!sorted) {  // not the id order (rowid ≠ id): sort an index
    std::vector<std::size_t> order(_ids.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return _ids[a] < _ids[b]; });
    std::string arena;
    std::vector<std::int64_t> ids;
    std::vector<std::uint64_t> offsets{0};
    for (auto i : order) {
      ids.push_back(_ids[i]);
      arena.append(_arena, _offsets[i], _offsets[i + 1] - _offsets[i]);
      offsets.push_back(arena.size());
    }
    _arena = std::move(arena), _ids = std::move(ids), _offsets = std::move(offsets);
  }
  // Unsigned differences: ids may lie anywhere in int64 (a hostile file), never overflowing.
  _dense = _ids.empty() ||
           static_cast<std::uint64_t>(_ids.back()) - static_cast<std::uint64_t>(_ids.front()) ==
               _ids.size() - 1;
  _interned.assign(_ids.size(), string_pool::npos);
}

std::int64_t string_ids::index_of(std::int64_t id) const {
  if (_ids.empty()) return -1;
  if (_dense) {
    auto const i = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(_ids.front());
    return i < _ids.size() ? static_cast<std::int64_t>(i) : -1;  // below front wraps past size
  }
  auto it = std::lower_bound(_ids.begin(), _ids.end(), id);
  return it != _ids.end() && *it == id ? it - _ids.begin() : -1;
}

bool string_ids::lookup(std::int64_t id, std::string_view& out) const {
  auto const i = index_of(id);
  if (i < 0) return false;
  out = std::string_view(_arena).substr(_offsets[i], _offsets[i + 1] - _offsets[i]);
  return true;
}

string_id string_ids::intern(std::int64_t id, string_pool& pool) {
  auto const i = index_of(id);
  if (i < 0) return string_pool::npos;
  auto& slot = _interned[static_cast<std::size_t>(i)];
  if (slot == string_pool::npos) {
    std::string_view v;
    (void)lookup(id, v);
    slot = pool.intern(v);
  }
  return slot;
}

}  // namespace tracesweep::nsys
