// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/error.hpp>

#include <utility>

namespace tracesweep {

namespace {
std::string one_line(std::string const& path, std::string const& where, std::string const& why) {
  std::string s = path;
  if (!where.empty()) s += ": " + where;
  s += ": " + why;
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

input_error::input_error(std::string path, std::string where, std::string why)
    : std::runtime_error(one_line(path, where, why)),
      _path(std::move(path)),
      _where(std::move(where)),
      _why(std::move(why)) {}

pattern_error::pattern_error(std::string pattern, std::string why)
    : std::runtime_error(one_line("'" + pattern + "'", "", "invalid regular expression: " + why)),
      _pattern(std::move(pattern)),
      _why(std::move(why)) {}

}  // namespace tracesweep
