// SPDX-License-Identifier: Apache-2.0
// The export's StringIds table held once in memory, and a lazy map from StringIds ids to the
// event table's string ids: each id referenced by an event is interned exactly once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/string_pool.hpp>

#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

class string_ids {
 public:
  /// Loads `StringIds(id, value)` in rowid order.
  void load(connection& db);

  /// The text of StringIds id `id`, or nothing (false) when the id is not in the table.
  [[nodiscard]] bool lookup(std::int64_t id, std::string_view& out) const;

  /// The pool id of StringIds[id], or string_pool::npos when the id is not in the table.
  /// Not thread-safe (interns): call from one thread.
  [[nodiscard]] string_id intern(std::int64_t id, string_pool& pool);

 private:
  std::string _arena;
  std::vector<std::int64_t> _ids;       // sorted ids (the table's rowid order)
  std::vector<std::uint64_t> _offsets;  // _arena offset of value i; one extra at the end
  bool _dense = true;                   // _ids[i] == _ids[0] + i for all i
  std::vector<string_id> _interned;     // by index into _ids; npos = not yet

  [[nodiscard]] std::int64_t index_of(std::int64_t id) const;
};

}  // namespace tracesweep::nsys
