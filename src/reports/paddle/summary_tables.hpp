// SPDX-License-Identifier: Apache-2.0
// The result tables of Paddle's Device, Memory Manipulation, UserDefined and Perf Summaries:
// a flat table (text and CSV: one row per rank and item) and a JSON table (nested per rank) each.
#pragma once

#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/reports/paddle/device_summary.hpp>
#include <tracesweep/reports/paddle/perf_summary.hpp>
#include <tracesweep/reports/paddle/user_range_summary.hpp>

namespace tracesweep::tables {

[[nodiscard]] output::result_table device_flat(std::vector<rank_device_summary> const& v);
/// The device summary as CSV: JSON's fields under JSON's names, one row per GPU.
[[nodiscard]] output::result_table device_csv(std::vector<rank_device_summary> const& v);
[[nodiscard]] output::result_table device_json(std::vector<rank_device_summary> const& v);
/// `name`: "memcpy" (Memory Manipulation) or "userdefined".
[[nodiscard]] output::result_table user_ranges_flat(std::string name, std::string title,
                                                    std::vector<rank_user_ranges> const& v);
[[nodiscard]] output::result_table user_ranges_json(std::string name,
                                                    std::vector<rank_user_ranges> const& v);
/// The perf summary as text: one row per (rank, item), times in seconds.
[[nodiscard]] output::result_table perf_flat(std::vector<rank_perf> const& v);
/// The perf summary as CSV and JSON: the same rows, times in ns.
[[nodiscard]] output::result_table perf_rows(std::vector<rank_perf> const& v);

}  // namespace tracesweep::tables
