// SPDX-License-Identifier: Apache-2.0
// Host-tree helpers of the operator tables (see host_tree.hpp).
#include "reports/host_tree.hpp"

#include <algorithm>
#include <tuple>

#include <tracesweep/exact_stats.hpp>

namespace tracesweep::tables {

std::vector<std::size_t> host_rows_parents_first(event_table const& table) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table.device[i] < 0) rows.push_back(i);
  auto key = [&](std::size_t i) {
    return std::tuple(table.start_ns[i], table.kind[i] == event_kind::api_call, -table.end_ns[i],
                      i);
  };
  std::sort(rows.begin(), rows.end(),
            [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return rows;
}

std::vector<std::int64_t> device_time_launched(trace_model const& model) {
  auto const& t = model.table();
  std::vector<std::int64_t> launched(t.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_device_activity(t.kind[i])) continue;
    auto const call = model.launcher(i);
    if (call < 0) continue;
    auto& sum = launched[static_cast<std::size_t>(call)];
    sum = checked_add(sum, t.end_ns[i] - t.start_ns[i], "the device time one call launched");
  }
  return launched;
}

std::vector<std::int64_t> nearest_node_above(trace_model const& model,
                                             std::vector<std::size_t> const& order,
                                             std::function<bool(std::size_t)> const& is_node) {
  std::vector<std::int64_t> above(model.table().size(), -1);
  for (auto const row : order) {
    auto const p = model.parent(row);
    if (p < 0) continue;
    auto const parent = static_cast<std::size_t>(p);
    above[row] = is_node(parent) ? p : above[parent];
  }
  return above;
}

}  // namespace tracesweep::tables
