// SPDX-License-Identifier: Apache-2.0
// Reading the side tables (event_table::launch_details, range_sources) from the reports: each
// row's entry, and launch dimensions as nsys prints them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep::stats {

/// Per row of a table of `rows` rows: its index in `side`, or -1.
template <class T>
[[nodiscard]] std::vector<std::int64_t> side_table_index(std::size_t rows,
                                                         row_side_table<T> const& side) {
  std::vector<std::int64_t> out(rows, -1);
  for (std::size_t k = 0; k < side.size(); ++k) out[side.row[k]] = static_cast<std::int64_t>(k);
  return out;
}

/// Per row of `t`: its index in t.launch_details, or -1.
[[nodiscard]] std::vector<std::int64_t> launch_detail_index(event_table const& t);

/// "%4d %4d %4d" of X, Y, Z (nsys's GridXYZ / BlockXYZ); empty when unknown (X < 0).
[[nodiscard]] std::string launch_dimensions(std::array<std::int32_t, 3> const& d);

}  // namespace tracesweep::stats
