// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/error.hpp>
#include <tracesweep/model/name_regex.hpp>

#include <re2/re2.h>

namespace tracesweep {

name_regex::name_regex(std::string const& pattern, bool case_sensitive) {
  RE2::Options options;
  options.set_case_sensitive(case_sensitive);
  options.set_log_errors(false);
  _re = std::make_unique<RE2>(pattern, options);
  if (!_re->ok()) throw pattern_error(pattern, _re->error());
}

name_regex name_regex::whole_name(std::string const& pattern) {
  name_regex const checked(pattern);  // the error names the pattern as given
  return name_regex("^(?:" + pattern + ")$");
}

name_regex::~name_regex() = default;
name_regex::name_regex(name_regex&&) noexcept = default;
name_regex& name_regex::operator=(name_regex&&) noexcept = default;

bool name_regex::matches(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *_re);
}

}  // namespace tracesweep
