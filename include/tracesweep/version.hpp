// SPDX-License-Identifier: Apache-2.0
// The tracesweep version, set by CMake.
#pragma once

namespace tracesweep {
inline constexpr char const* version_string = "0.1.0";
}
