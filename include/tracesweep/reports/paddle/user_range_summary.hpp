// SPDX-License-Identifier: Apache-2.0
// Paddle's Memory Manipulation Summary and UserDefined Summary (§1.11), per rank, by name:
// - memory manipulation: user ranges (Paddle UserDefined or PythonUserDefined; Kineto
//   user_annotation; nsys NVTX) whose name contains memcpy, memorycopy or memset (any case);
// - user defined: the other user ranges (Paddle: PythonUserDefined only, as Paddle prints).
// CPU time = durations (stats over instances), ratio over the rank's denominator; GPU time =
// kernel + memcpy + memset time launched inside each instance (tables/launched_device_time:
// Paddle's own-thread rule, else any thread of the rank), ratio over the same time of the steps
// (no steps: of every launched device row of the rank).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

enum class user_range_table : std::uint8_t { memory_manipulation, user_defined };

struct user_range_item {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t cpu_total_ns = 0, cpu_min_ns = 0, cpu_max_ns = 0;
  double cpu_avg_ns = 0, cpu_ratio = 0;
  std::int64_t gpu_total_ns = 0, gpu_min_ns = 0, gpu_max_ns = 0;
  double gpu_avg_ns = 0, gpu_ratio = 0;
};

struct rank_user_ranges {
  std::int32_t rank = 0;
  std::int64_t total_ns = 0;           ///< the overview denominator (CPU ratios)
  std::int64_t step_gpu_ns = 0;        ///< device time launched inside the steps (GPU ratios)
  std::vector<user_range_item> items;  ///< CPU total descending, then name
};

/// Whether a user range named `name` is a memory manipulation (memcpy, memorycopy, memset).
[[nodiscard]] bool is_memory_manipulation(std::string_view name) noexcept;

/// One entry per rank, ascending.
[[nodiscard]] std::vector<rank_user_ranges> compute_user_range_summary(job_session const& session,
                                                                       user_range_table which);

}  // namespace tracesweep
