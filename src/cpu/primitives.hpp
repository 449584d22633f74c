// SPDX-License-Identifier: Apache-2.0
// The CPU backend's primitives as free functions (one .cpp each), so that tests and benchmarks
// can time the stages separately. Results never depend on `threads` (>= 1). The arguments must
// satisfy the preconditions the public backend calls check (src/backends/backend.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/intervals.hpp>

namespace tracesweep::cpu {

/// Intervals already sorted by (group, start): the input of the union sweep.
struct sorted_intervals {
  std::span<group_id const> group;
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
};

/// Union per group (interval_union.cpp). Intervals with end <= start add nothing.
[[nodiscard]] interval_union union_by_group(interval_view intervals, unsigned threads);
/// The same of rows `rows` of whole columns, row rows[k] in group group[k], without gathering
/// them first.
[[nodiscard]] interval_union union_of_rows(std::span<std::int64_t const> start,
                                           std::span<std::int64_t const> end,
                                           std::span<std::size_t const> rows,
                                           std::span<group_id const> group, unsigned threads);
/// The same of every row i whose group[i] is below `groups` (others are not taken), when each
/// group's rows come in start order: one sweep of the columns (row_order_union.hpp); nullopt
/// when a group's rows do not.
[[nodiscard]] std::optional<interval_union> union_in_row_order(std::span<std::int64_t const> start,
                                                               std::span<std::int64_t const> end,
                                                               std::span<group_id const> group,
                                                               std::size_t groups,
                                                               unsigned threads);

/// The linear sweep after sorting: merges overlapping and touching intervals of one group.
/// Every input interval must have end > start.
[[nodiscard]] interval_union union_of_sorted(sorted_intervals sorted, unsigned threads);

/// Gaps per group (gap_scan.cpp); see backend::gap_scan.
[[nodiscard]] std::vector<gap> gap_scan(interval_union const& u, group_windows windows,
                                        std::int64_t min_gap, std::size_t top_per_group,
                                        unsigned threads);

/// Exact statistics per key (segmented_stats.cpp); see backend::segmented_stats.
[[nodiscard]] std::vector<exact_stats> segmented_stats(std::span<std::uint32_t const> keys,
                                                       std::span<std::int64_t const> values,
                                                       std::span<double const> quantiles,
                                                       unsigned threads);
/// The same of the durations end - start of rows `rows` of whole columns, row rows[k] under key
/// keys[k], without gathering them first (see backend::duration_stats); `rows` empty with keys:
/// every row of the columns in order (row_durations::every_row).
[[nodiscard]] std::vector<exact_stats> duration_stats(std::span<std::int64_t const> start,
                                                      std::span<std::int64_t const> end,
                                                      std::span<std::size_t const> rows,
                                                      std::span<std::uint32_t const> keys,
                                                      std::span<double const> quantiles,
                                                      unsigned threads);

/// |a ∩ b| per group by a two-pointer walk (interval_intersection.cpp).
[[nodiscard]] std::vector<std::int64_t> intersection_by_group(interval_union const& a,
                                                              interval_union const& b,
                                                              std::size_t group_count);

}  // namespace tracesweep::cpu
