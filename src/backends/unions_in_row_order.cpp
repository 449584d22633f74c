// SPDX-License-Identifier: Apache-2.0
// The (device × class) unions of device activity in one pass over the columns (row_order_union),
// where each group's rows come in start order; the devices' windows on the way.
#include <tracesweep/row_order_union.hpp>
#include <tracesweep/task_threads.hpp>

#include <tuple>
#include <vector>

#include "backends/activity_classes.hpp"

namespace tracesweep::activity_classes {

std::optional<interval_union> unions_in_row_order(activity_request const& r,
                                                  std::vector<device_activity_row>& rows,
                                                  unsigned threads) {
  auto const n = r.kind.size();
  auto const workers = item_chunks(0, n, threads).workers;
  std::vector<std::vector<device_activity_row>> windows(
      workers, std::vector<device_activity_row>(r.device_count));
  auto const item = [&](unsigned w, std::size_t i) {
    if (!is_device_activity(r.kind[i]))
      return std::tuple{false, group_id{0}, std::int64_t{0}, std::int64_t{0}};
    widen_window(r, i, windows[w]);
    return std::tuple{true, classed_group(r, i), r.start[i], r.end[i]};
  };
  auto out = union_in_row_order(item, n, r.device_count * class_count, workers);
  if (!out) return std::nullopt;
  for (auto const& chunk : windows) widen_windows(rows, chunk);
  return out;
}

}  // namespace tracesweep::activity_classes
