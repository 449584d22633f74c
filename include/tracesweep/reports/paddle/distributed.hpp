// SPDX-License-Identifier: Apache-2.0
// Communication, computation and their overlap per rank, and across ranks (min / median / max,
// and the slowest rank by mean step time). Paddle inputs follow Paddle's Distributed Summary;
// other inputs split kernels by name (the summary's communication pattern).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct rank_distributed {
  std::int32_t rank = 0;
  std::int64_t total_ns = 0;  ///< the overview denominator
  std::int64_t communication_ns = 0;
  std::int64_t computation_ns = 0;
  std::int64_t overlap_ns = 0;
  std::int64_t steps = 0;   ///< ProfileStep / ProfilerStep events; 0 = none
  double mean_step_ns = 0;  ///< mean step duration; the span when there are no steps
};

struct across_ranks {
  std::string metric;  ///< "communication", "computation", "overlap", "mean_step"
  double min = 0, median = 0, max = 0;
};

struct distributed_summary {
  std::vector<rank_distributed> ranks;  ///< ascending rank
  std::vector<across_ranks> across;
  std::int32_t slowest_rank = -1;  ///< largest mean step time (lowest rank on ties)
};

/// Non-Paddle kernels are communication when the model's classifier says so
/// (model_options::comm_pattern).
[[nodiscard]] distributed_summary compute_distributed(job_session const& session);

}  // namespace tracesweep
