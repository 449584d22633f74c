// SPDX-License-Identifier: Apache-2.0
// The GPU operations nsys's gpu_gaps and gpu_time_util rules read, per (input, rank, device).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::stats {

struct device_operations {
  std::int32_t input = 0, rank = 0, device = 0;
  std::int64_t pid = 0;                  ///< the rank's process id (input_info::process_id)
  std::optional<std::int64_t> context;   ///< the one context the input names for it, if one
  std::int64_t first = 0, last = 0;      ///< first start and last end of its own operations
  std::vector<std::int64_t> start, end;  ///< its operations, then the overhead pseudo-operations
};

/// Kernels, memcpys and memsets with start > 0 per (input, rank, device), in that order, each
/// with the input's profiler-overhead ranges of its rank that lie strictly inside (first, last).
[[nodiscard]] std::vector<device_operations> gpu_operations(trace_model const& model);

/// Per input: its index among the inputs sorted by path (nsys recipes number ranks so).
[[nodiscard]] std::vector<std::int32_t> recipe_ranks(event_table const& table);

}  // namespace tracesweep::stats
