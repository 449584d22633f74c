// SPDX-License-Identifier: Apache-2.0
// Paddle's op_detail under the operator table, per rank: for each operator name its inner items
// (the host ranges nested directly in its instances that are not operators, e.g. Paddle's
// `::infer_shape` / `::compute`, grouped by name) with their CPU time and the device time launched
// below them, the device rows under each inner item grouped by name, and the operator's own device
// rows (launched by runtime calls nested directly in it). Device rows below a nested operator
// belong to that operator, not to the item above it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

/// One line of the detail. inner empty: the operator's own device rows; kernel empty: the inner
/// item itself. Ratios: an inner item's CPU over the operator's host total and GPU over its device
/// total; a device row's GPU over its inner item's GPU (over the operator's, for its own rows).
struct operator_detail_row {
  std::string op, inner, kernel;
  std::int64_t calls = 0;
  std::int64_t cpu_total_ns = 0;  ///< inner items only (0 for device rows)
  std::int64_t gpu_total_ns = 0;
  double cpu_ratio = 0, gpu_ratio = 0;
};

struct rank_operator_detail {
  std::int32_t rank = 0;
  std::vector<operator_detail_row> rows;  ///< by (op, inner, kernel) name
};

/// One entry per rank of model.ranks().
[[nodiscard]] std::vector<rank_operator_detail> compute_operator_detail(trace_model const& model,
                                                                        backend& be);

}  // namespace tracesweep
