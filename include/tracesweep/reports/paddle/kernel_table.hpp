// SPDX-License-Identifier: Apache-2.0
// Paddle's Kernel Summary, per rank: kernels grouped by full name, calls, total / avg / max / min
// GPU time and the share of all kernel time, by total descending.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

struct kernel_table_row {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0, max_ns = 0, min_ns = 0;
  double avg_ns = 0;
  double ratio = 0;
};

struct rank_kernel_table {
  std::int32_t rank = 0;
  std::vector<kernel_table_row> rows;
};

/// One entry per rank of model.ranks(); only kept kernels (trace_model::kept).
[[nodiscard]] std::vector<rank_kernel_table> compute_kernel_table(trace_model const& model,
                                                                  backend& be);

}  // namespace tracesweep
