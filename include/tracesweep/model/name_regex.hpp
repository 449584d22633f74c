// SPDX-License-Identifier: Apache-2.0
// The general name matcher: one case-insensitive RE2 search per name, compiled once; or, made by
// whole_name, a match of the whole name. RE2 runs in linear time in the name's length, whatever
// the pattern. The model's patterns (kernel and host communication, steps) and diagnose's
// data-loader pattern are name_regexes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace tracesweep {

class name_regex {
 public:
  /// Throws pattern_error when `pattern` does not compile. Searched in any case unless
  /// `case_sensitive` (--filter-name).
  explicit name_regex(std::string const& pattern, bool case_sensitive = false);
  /// A regex that matches only a whole name (`pattern` anchored at both ends). Throws
  /// pattern_error naming `pattern` when `pattern` itself does not compile.
  [[nodiscard]] static name_regex whole_name(std::string const& pattern);
  ~name_regex();
  name_regex(name_regex&&) noexcept;
  name_regex& operator=(name_regex&&) noexcept;

  /// Whether `name` contains a match (whole_name: whether all of `name` matches).
  [[nodiscard]] bool matches(std::string_view name) const;

 private:
  std::unique_ptr<re2::RE2> _re;
};

}  // namespace tracesweep
