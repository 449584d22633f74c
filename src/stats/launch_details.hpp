// SPDX-License-Identifier: Apache-2.0
// Reading event_table::launch_details from the reports: each row's entry, and launch dimensions
// as nsys prints them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep::stats {

/// Per row of `t`: its index in t.launch_details, or -1.
[[nodiscard]] std::vector<std::int64_t> launch_detail_index(event_table const& t);

/// "%4d %4d %4d" of X, Y, Z (nsys's GridXYZ / BlockXYZ); empty when unknown (X < 0).
[[nodiscard]] std::string launch_dimensions(std::array<std::int32_t, 3> const& d);

}  // namespace tracesweep::stats
