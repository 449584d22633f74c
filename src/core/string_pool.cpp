// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/string_pool.hpp>

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

string_id string_pool::find(std::string_view s) const {
  auto it = _ids.find(s);
  return it == _ids.end() ? npos : it->second;
}

}  // namespace tracesweep
