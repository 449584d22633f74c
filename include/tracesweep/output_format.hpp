// SPDX-License-Identifier: Apache-2.0
// Output formats shared by every report writer.
#pragma once

#include <optional>
#include <string_view>

namespace tracesweep {

enum class output_format { text, json, csv };

[[nodiscard]] std::optional<output_format> parse_output_format(std::string_view s) noexcept;

}  // namespace tracesweep
