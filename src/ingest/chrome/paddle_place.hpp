// SPDX-License-Identifier: Apache-2.0
// Paddle's memory `place` text (phi::Place as written: "Place(gpu:0)", "Place(cpu)", and the
// fluid era's "CUDAPlace(0)", "CPUPlace") to the device the memory columns use.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracesweep::chrome {

/// -1 for host memory ("cpu", "CPUPlace"), N for GPU N ("gpu:N", "CUDAPlace(N)"); nullopt for
/// any other place (pinned host memory, XPU, custom devices), whose totals are the allocator's
/// of that place and would corrupt the host or GPU series if mixed in.
[[nodiscard]] std::optional<std::int32_t> paddle_place_device(std::string_view place) noexcept;

}  // namespace tracesweep::chrome
