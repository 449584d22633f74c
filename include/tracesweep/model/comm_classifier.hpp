// SPDX-License-Identifier: Apache-2.0
// Marks names as communication: one case-insensitive RE2 search, compiled once, per name.
// RE2 runs in linear time in the name's length, whatever the pattern.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace tracesweep {

class comm_classifier {
 public:
  /// Throws pattern_error when `pattern` does not compile.
  explicit comm_classifier(std::string const& pattern);
  ~comm_classifier();
  comm_classifier(comm_classifier&&) noexcept;
  comm_classifier& operator=(comm_classifier&&) noexcept;

  /// Whether `name` contains a match.
  [[nodiscard]] bool matches(std::string_view name) const;

 private:
  std::unique_ptr<re2::RE2> _re;
};

}  // namespace tracesweep
