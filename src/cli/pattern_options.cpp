// SPDX-License-Identifier: Apache-2.0
// regex_check: compiles a pattern option's value as the analysis will.
#include "cli/pattern_options.hpp"

#include <string>

#include <tracesweep/error.hpp>
#include <tracesweep/model/name_regex.hpp>

namespace tracesweep::cli {

CLI::Validator regex_check(bool case_sensitive) {
  return CLI::Validator(
      [case_sensitive](std::string const& pattern) -> std::string {
        try {
          name_regex const compiled(pattern, case_sensitive);
        } catch (pattern_error const& e) {
          return e.what();
        }
        return {};
      },
      "", "regex");
}

}  // namespace tracesweep::cli
