// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/string_pool.hpp>

#include <string>
#include <utility>

namespace tracesweep {

string_pool::string_pool() {
  intern("");
}

string_id string_pool::intern(std::string_view s) {
  if (auto it = _ids.find(s); it != _ids.end()) return it->second;
  auto const id = static_cast<string_id>(_strings.size());
  std::string const& stored = _strings.emplace_back(s);
  _ids.emplace(std::string_view{stored}, id);
  return id;
}

std::size_t string_pool::memory_bytes() const noexcept {
  std::size_t bytes = 0;
  for (auto const& s : _strings)
    bytes += sizeof(std::string) + (s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0);
  // An index node holds the key, the id and the next pointer (and, for string_view keys, the
  // cached hash); each bucket is one pointer.
  std::size_t const node =
      sizeof(void*) + sizeof(std::pair<std::string_view, string_id>) + sizeof(std::size_t);
  return bytes + _ids.size() * node + _ids.bucket_count() * sizeof(void*);
}

string_id string_pool::find(std::string_view s) const {
  auto it = _ids.find(s);
  return it == _ids.end() ? npos : it->second;
}

}  // namespace tracesweep
