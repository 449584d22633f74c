// SPDX-License-Identifier: Apache-2.0
// What the operator tables read of the host-range tree besides parent(): the host rows in an order
// that puts every parent before its children, the device time each runtime call launched, and each
// row's nearest ancestor of a kind the caller chooses.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::tables {

/// Host rows (device < 0) by (start, API calls after ranges, −end, row): the trace model's nesting
/// order, in which a parent always precedes its children.
[[nodiscard]] std::vector<std::size_t> host_rows_parents_first(event_table const& table);

/// Per row: Σ durations of the kernels, memcpys and memsets it launched (launch links); 0 for
/// rows that launched nothing.
[[nodiscard]] std::vector<std::int64_t> device_time_launched(trace_model const& model);

/// Per row of `order` (host_rows_parents_first): its nearest proper ancestor for which `is_node`
/// holds, or -1; -1 for rows outside `order`.
[[nodiscard]] std::vector<std::int64_t> nearest_node_above(
    trace_model const& model, std::vector<std::size_t> const& order,
    std::function<bool(std::size_t)> const& is_node);

}  // namespace tracesweep::tables
