// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/launch_details.hpp"

#include <fmt/format.h>

namespace tracesweep::stats {

std::vector<std::int64_t> launch_detail_index(event_table const& t) {
  return side_table_index(t.size(), t.launch_details);
}

std::string launch_dimensions(std::array<std::int32_t, 3> const& d) {
  if (d[0] < 0) return {};
  return fmt::format("{:4} {:4} {:4}", d[0], d[1], d[2]);
}

}  // namespace tracesweep::stats
