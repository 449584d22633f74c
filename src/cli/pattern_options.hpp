// SPDX-License-Identifier: Apache-2.0
// Regular-expression options: each pattern option is compiled by a CLI11 check of its own, so
// that a pattern RE2 refuses is a usage error naming that option, found while parsing:
// `--step-pattern: '(': invalid regular expression: missing ): (`.
#pragma once

#include <CLI/CLI.hpp>

namespace tracesweep::cli {

/// Checks that a value compiles as the name_regex the option feeds (searched in any case unless
/// `case_sensitive`).
[[nodiscard]] CLI::Validator regex_check(bool case_sensitive = false);

}  // namespace tracesweep::cli
