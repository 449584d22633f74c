// SPDX-License-Identifier: Apache-2.0
// Paddle's Perf Summary (§1.13), per rank, from the trace's steps: batch_cost = a step's duration,
// reader_cost = the time inside data loading during it (|∪ data-loader host ranges ∩ the step|),
// ips = steps per second. Deliberately unlike Paddle's timer: no step is skipped (Paddle drops
// the first 10), ips avg = steps / Σ batch_cost, ips max and min come from the fastest and the
// slowest step (Paddle's `if … elif` update can leave min at inf), reader ratio = avg reader /
// avg batch.
#pragma once

#include <cstdint>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct cost_summary {
  double avg_ns = 0;
  std::int64_t max_ns = 0, min_ns = 0;
};

struct rank_perf {
  std::int32_t rank = 0;
  std::int64_t steps = 0;   ///< 0: the rank has no steps and nothing else is set
  bool has_reader = false;  ///< some data loading happened during a step
  cost_summary reader_cost, batch_cost;
  double ips_avg = 0, ips_max = 0, ips_min = 0;  ///< steps per second
  double reader_ratio = 0;
};

/// One entry per rank, ascending.
[[nodiscard]] std::vector<rank_perf> compute_perf_summary(job_session const& session);

}  // namespace tracesweep
