// SPDX-License-Identifier: Apache-2.0
// The operator table, per rank: framework operators grouped by name with their calls, host time
// (total; self = the part of it not covered by the host rows nested directly in it, each clipped
// to the operator) and the device time they launched (total: kernels, memcpy and memset launched by
// the runtime calls anywhere in the operator's subtree; self: by the calls whose innermost
// enclosing operator is this one), from the trace model's nesting and launch links. Paddle's
// Operator Summary columns (avg / max / min per instance, ratio of all operators) come along.
// Operators: Kineto and Paddle `cpu_op` / `Operator` rows (steps and stages are not operators),
// nsys NVTX ranges (what `emit_nvtx` records; marks excluded).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

/// One operator name. Per-instance statistics: host = the instances' durations, device = their
/// device totals; avg = total / calls; ratios = total / Σ totals of all operators of the rank.
struct operator_row {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t host_total_ns = 0, host_self_ns = 0;
  std::int64_t device_total_ns = 0, device_self_ns = 0;
  std::int64_t host_max_ns = 0, host_min_ns = 0, device_max_ns = 0, device_min_ns = 0;
  double host_avg_ns = 0, device_avg_ns = 0;
  double host_ratio = 0, device_ratio = 0;
};

/// What rows can be sorted by: `name` ascending, `*_min` ascending (as Paddle), the rest
/// descending; ties by name.
enum class operator_sort {
  name,
  calls,
  host_total,
  host_self,
  host_avg,
  host_max,
  host_min,
  device_total,
  device_self,
  device_avg,
  device_max,
  device_min
};
/// The sort keys by their option names ("device_total", …), in enum order.
[[nodiscard]] std::span<std::string_view const> operator_sort_names() noexcept;
[[nodiscard]] std::optional<operator_sort> parse_operator_sort(std::string_view name) noexcept;
void sort_operator_rows(std::vector<operator_row>& rows, operator_sort key);

struct rank_operator_table {
  std::int32_t rank = 0;
  bool paddle = false;  ///< a Paddle export holds the rank (text adds Paddle's columns)
  std::vector<operator_row> rows;
};

/// Whether host row `row` is an operator (see the file comment).
[[nodiscard]] bool is_operator_row(trace_model const& model, std::size_t row) noexcept;

/// One entry per rank of model.ranks(), rows sorted by `key`.
[[nodiscard]] std::vector<rank_operator_table> compute_operator_table(
    trace_model const& model, backend& be, operator_sort key = operator_sort::device_total);

}  // namespace tracesweep
