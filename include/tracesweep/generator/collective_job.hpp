// SPDX-License-Identifier: Apache-2.0
// A job whose ranks meet at NCCL collectives, one rank late (generate --plant collectives), with
// its exact truth. Every step each rank loads data on its host, runs three compute kernels, then
// an all_reduce of its gradients (float32) and an all_gather of parameters (bfloat16) on its
// communication stream. The late rank's data loader takes `late_ns` longer, so at every
// all_reduce every other rank waits that long for it; the all_gather follows the all_reduce's end
// on every rank at once (a tie: nobody is last). Each collective ends at its last arrival plus a
// fixed transfer time, as NCCL's do, and every rank starts the next step at the same time.
// Kineto args record each collective's sizes, type, group size and process group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

struct collective_job_options {
  std::int32_t ranks = 4;
  std::int32_t steps = 5;
  std::int32_t late_rank = -1;  ///< -1: the last rank
  std::int64_t late_ns = 250'000;
  std::int64_t start_ns = 1'700'000'000'000'000'000;
};

/// What overview --table collective_ranks must say of a rank (its columns).
struct collective_rank_truth {
  std::int32_t rank = 0;
  std::int64_t collectives = 0, wait_ns = 0, transfer_ns = 0, last_arrivals = 0;
  std::int64_t wait_caused_ns = 0;  ///< the others' waits where it arrived last
  /// At its costliest late arrival (all are equal; the first): the others' waits, and the host
  /// op it spent longer in than the others before it with that excess ("" and 0 when never
  /// last).
  std::int64_t worst_wait_caused_ns = 0;
  std::string behind;
  std::int64_t behind_excess_ns = 0;
};

/// What overview --table collectives must say of one row (its columns); bytes as Kineto's args
/// give them (an nsys export records none).
struct collective_row_truth {
  std::int32_t rank = 0;
  std::string kind, dtype;
  std::int64_t bytes = 0, group_size = 0, calls = 0, total_ns = 0, wait_ns = 0, transfer_ns = 0;
  double algbw_gbps = 0, busbw_gbps = 0, busbw_transfer_gbps = 0;
};

struct collective_truth {
  std::vector<collective_rank_truth> ranks;  ///< ascending rank
  std::vector<collective_row_truth> rows;    ///< by rank, all_reduce then all_gather
};

/// Fills `table` with the job (one input) and returns its truth. Throws std::invalid_argument
/// for fewer than 2 ranks, no step, a late rank out of range or a negative delay.
[[nodiscard]] collective_truth generate_collective_job(collective_job_options const& o,
                                                       event_table& table);

}  // namespace tracesweep
