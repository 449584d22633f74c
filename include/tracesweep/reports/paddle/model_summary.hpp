// SPDX-License-Identifier: Apache-2.0
// Paddle's Model Summary, per rank: ProfileStep and the outermost Dataloader / Forward / Backward /
// Optimization events (Kineto: ProfilerStep#N, DataLoader, Optimizer.step), with CPU time (their
// durations) and GPU time (kernel time launched inside each, streams summed), plus Others.
// Launched inside: Paddle (§1.7) counts the kernels of runtime calls on the row's own thread that
// lie wholly inside the row; Kineto counts the kernels whose runtime call (same correlation) starts
// in [row start, row end) on any host thread of the rank, so backward kernels launched from the
// autograd thread fall in their ProfilerStep. Memcpy / memset are not counted in either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct model_item {
  std::string name;     ///< "ProfileStep", "Dataloader", …, "Others"
  bool others = false;  ///< the Others row: only totals and ratios are meaningful
  std::int64_t calls = 0;
  std::int64_t cpu_total_ns = 0, cpu_min_ns = 0, cpu_max_ns = 0;
  double cpu_avg_ns = 0;
  double cpu_ratio = 0;  ///< cpu_total / the overview denominator
  std::int64_t gpu_total_ns = 0, gpu_min_ns = 0, gpu_max_ns = 0;
  double gpu_avg_ns = 0;
  double gpu_ratio = 0;  ///< gpu_total / the step row's gpu_total
};

struct rank_model_summary {
  std::int32_t rank = 0;
  std::int64_t total_ns = 0;  ///< the overview denominator
  std::vector<model_item> items;
};

/// One entry per rank, ascending.
[[nodiscard]] std::vector<rank_model_summary> compute_model_summary(job_session const& session);

}  // namespace tracesweep
