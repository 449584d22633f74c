// SPDX-License-Identifier: Apache-2.0
// The (device × class) groups of device activity rows that compose_device_activity unions: four
// disjoint classes per device (communication and computation kernels, copies, sets).
#pragma once

#include <tracesweep/backend.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace tracesweep::activity_classes {

/// The four disjoint classes of device activity, each device's rows in one group per class.
enum activity_class : group_id { comm_class, comp_class, copy_class, set_class, class_count };

inline activity_class class_of(event_kind k, std::uint32_t name,
                               std::span<std::uint8_t const> comm) {
  if (k == event_kind::memcpy) return copy_class;
  if (k == event_kind::memset) return set_class;
  return name < comm.size() && comm[name] != 0 ? comm_class : comp_class;
}

/// The (device × class) group of device row `i`.
inline group_id classed_group(activity_request const& r, std::size_t i) {
  return r.device_group[i] * class_count + class_of(r.kind[i], r.name[i], r.communication);
}

/// Widens the window of device row `i`'s device in `rows` to cover the row.
inline void widen_window(activity_request const& r, std::size_t i,
                         std::vector<device_activity_row>& rows) {
  auto& row = rows[r.device_group[i]];
  row.window_start = std::min(row.window_start, r.start[i]);
  row.window_end = std::max(row.window_end, r.end[i]);
}

/// Widens each device's window in `rows` to cover its window in `part` (a chunk's windows).
inline void widen_windows(std::vector<device_activity_row>& rows,
                          std::vector<device_activity_row> const& part) {
  for (std::size_t d = 0; d < part.size(); ++d) {
    rows[d].window_start = std::min(rows[d].window_start, part[d].window_start);
    rows[d].window_end = std::max(rows[d].window_end, part[d].window_end);
  }
}

/// The union of every (device × class) group's rows, in (group, start) order, when each group's
/// rows come in start order in the columns (an nsys export's tables are in start order): one
/// pass over the columns in contiguous chunks on `threads` host threads, no list of rows. The
/// devices' windows in `rows` on the way. nullopt as soon as a group's row starts before the
/// group's row before it (its rows are listed and sorted or merged then).
[[nodiscard]] std::optional<interval_union> unions_in_row_order(
    activity_request const& r, std::vector<device_activity_row>& rows, unsigned threads);

}  // namespace tracesweep::activity_classes
