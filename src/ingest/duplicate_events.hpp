// SPDX-License-Identifier: Apache-2.0
// Duplicated events of one input (a `traceEvents` array written twice, rows repeated by a
// producer): found on the columns after any reader, whatever the format.
#pragma once

#include <cstddef>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep::detail {

/// The later copies among the current (last) input's events.
struct duplicates {
  std::vector<std::size_t> rows;           ///< rows of the table, ascending
  std::vector<std::size_t> memory_events;  ///< indices into event_table::memory, ascending
  [[nodiscard]] std::size_t size() const noexcept { return rows.size() + memory_events.size(); }
};

/// The rows of the current input equal to an earlier row of it in kind, name, start, end, rank,
/// device, stream (thread for host rows) and correlation, and the memory events equal to an
/// earlier one in every field. Only rows with a correlation id are compared: the launches, GPU
/// operations and runtime calls it ties, unique per launch. Rows without one can be equal in
/// every column and still distinct (Kineto's nested `aten::zeros` in `aten::zeros`, both in
/// the same whole µs, told apart only by their External id; nsys rows read without
/// correlations). Rows are first told apart by one bit per (kind, rank, correlation), or, where
/// the ids are too scattered for that, by one hash of kind, correlation and start grouped with
/// `threads` threads (as the memory events are); only rows whose bit or hash repeats are compared
/// in full.
[[nodiscard]] duplicates find_duplicates(event_table const& table, unsigned threads);

}  // namespace tracesweep::detail
