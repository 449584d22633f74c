// SPDX-License-Identifier: Apache-2.0
// Host range names as text shows them: without the suffixes torch's emit_nvtx appends.
#include <tracesweep/output/range_names.hpp>

#include <array>
#include <cctype>

namespace tracesweep::output {

std::string_view without_emit_nvtx_suffixes(std::string_view name) {
  constexpr std::array<std::string_view, 2> suffixes{", seq = ", ", op_id = "};
  for (auto const suffix : suffixes)
    for (auto at = name.find(suffix); at != std::string_view::npos;
         at = name.find(suffix, at + 1)) {
      auto const value = name.substr(at + suffix.size());
      if (!value.empty() &&
          (value.front() == '-' || std::isdigit(static_cast<unsigned char>(value.front()))))
        return at == 0 ? name : name.substr(0, at);
    }
  return name;
}

}  // namespace tracesweep::output
