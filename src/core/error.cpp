// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/error.hpp>

#include <utility>

namespace tracesweep {

namespace {
/// `PATH[: WHERE]: WHY`, the parts as they are: the CLI's error line shows control characters
/// escaped (cli::error_line), the store keeps the exact text.
std::string joined(std::string const& path, std::string const& where, std::string const& why) {
  std::string s = path;
  if (!where.empty()) s += ": " + where;
  return s + ": " + why;
}
}  // namespace

input_error::input_error(std::string path, std::string where, std::string why)
    : std::runtime_error(joined(path, where, why)),
      _path(std::move(path)),
      _where(std::move(where)),
      _why(std::move(why)) {}

pattern_error::pattern_error(std::string pattern, std::string why)
    : std::runtime_error(joined("'" + pattern + "'", "", "invalid regular expression: " + why)),
      _pattern(std::move(pattern)),
      _why(std::move(why)) {}

}  // namespace tracesweep
