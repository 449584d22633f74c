// SPDX-License-Identifier: Apache-2.0
#include "stats/launch_details.hpp"

#include <fmt/format.h>

namespace tracesweep::stats {

std::vector<std::int64_t> launch_detail_index(event_table const& t) {
  std::vector<std::int64_t> out(t.size(), -1);
  for (std::size_t k = 0; k < t.launch_details.size(); ++k)
    out[t.launch_details.row[k]] = static_cast<std::int64_t>(k);
  return out;
}

std::string launch_dimensions(std::array<std::int32_t, 3> const& d) {
  if (d[0] < 0) return {};
  return fmt::format("{:4} {:4} {:4}", d[0], d[1], d[2]);
}

}  // namespace tracesweep::stats
