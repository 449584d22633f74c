// SPDX-License-Identifier: Apache-2.0
// Display labels of memcpy directions (the copy_kind values in `subkind`), worded as Nsight
// Systems' ENUM_CUDA_MEMCPY_OPER labels: "Host-to-Device", "Peer-to-Peer", …
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace tracesweep {

[[nodiscard]] constexpr std::string_view memcpy_label(std::uint8_t copy_kind) noexcept {
  constexpr std::array<std::string_view, 14> labels{"Unknown",
                                                    "Host-to-Device",
                                                    "Device-to-Host",
                                                    "Host-to-Array",
                                                    "Array-to-Host",
                                                    "Array-to-Array",
                                                    "Array-to-Device",
                                                    "Device-to-Array",
                                                    "Device-to-Device",
                                                    "Host-to-Host",
                                                    "Peer-to-Peer",
                                                    "Unified Host-to-Device",
                                                    "Unified Device-to-Host",
                                                    "Unified Device-to-Device"};
  return copy_kind < labels.size() ? labels[copy_kind] : labels[0];
}

}  // namespace tracesweep
