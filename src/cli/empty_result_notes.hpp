// SPDX-License-Identifier: Apache-2.0
// Why a result is empty: one warning line on standard error for an input without GPU operations,
// and for filters that kept no row (or no GPU operation), so that an empty table is never silent.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <tracesweep/event_table.hpp>

namespace tracesweep::cli {

/// What a job held before its filters: rows, and of them GPU operations (kernels, memcpys,
/// memsets).
struct rows_read {
  std::size_t rows = 0;
  std::size_t gpu_operations = 0;
};

/// The rows of `table` and its GPU operations.
[[nodiscard]] rows_read count_rows(event_table const& table);

/// For each input of `table` with no GPU operation: "warning: PATH: no GPU operations (…) among
/// its N events (C1 n1, C2 n2, …)", its categories by count, most first.
void note_inputs_without_gpu_operations(event_table const& table, std::ostream& err);

/// After filters (`filters`: the options as given) narrowed `before` to `after`: a warning when
/// they kept no row, or, when `gpu_read` and `before` had GPU operations, none of those.
void note_what_the_filters_kept(rows_read before, rows_read after, bool gpu_read,
                                std::string const& filters, std::ostream& err);

}  // namespace tracesweep::cli
