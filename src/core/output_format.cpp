// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/output_format.hpp>

namespace tracesweep {

std::optional<output_format> parse_output_format(std::string_view s) noexcept {
  if (s == "text") return output_format::text;
  if (s == "json") return output_format::json;
  if (s == "csv") return output_format::csv;
  return std::nullopt;
}

}  // namespace tracesweep
