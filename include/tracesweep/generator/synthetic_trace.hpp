// SPDX-License-Identifier: Apache-2.0
// Deterministic synthetic multi-rank training traces of any size, written straight into the
// event table: steps with data-loader stalls, forward/backward/optimizer kernels on several
// streams (Zipf-distributed, long templated names), NCCL kernels on their own stream overlapping
// compute, memcpy/memset, host API calls linked to device rows by correlation id, profiler steps
// and NVTX-like ranges. The same options always give the same table.
#pragma once

#include <cstdint>
#include <string>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

struct synthetic_options {
  std::uint64_t seed = 1;
  std::int32_t ranks = 2;
  std::int32_t devices_per_rank = 1;
  std::int32_t streams_per_device = 3;  ///< compute streams; NCCL gets one more of its own
  std::int32_t steps = 4;
  std::int32_t kernels_per_step = 300;  ///< compute kernels per step and device
  std::int32_t nccl_per_step = 4;       ///< gradient all-reduce buckets per step and device
  /// When > 0, `steps` is replaced by the fewest steps giving at least this many events.
  std::int64_t target_events = 0;
  /// First timestamp (ns). The default is an epoch-like clock beyond 2^53, as Kineto writes.
  std::int64_t start_ns = 1'700'000'000'000'000'000;
  /// Host activity of a real PyTorch job, per 1000 kernel launches (compute and optimizer),
  /// spread evenly over each step; 0 (the default) adds none and leaves the trace unchanged.
  /// polls: `cudaEventQuery` api_call rows with no device work (the host polling an event);
  /// host_ops: short aten cpu_op rows that launch nothing (views, detach, item, …);
  /// copies: `cudaMemcpyAsync` + device-to-device memcpy row pairs.
  std::int32_t polls_per_1000_launches = 0;
  std::int32_t host_ops_per_1000_launches = 0;
  std::int32_t copies_per_1000_launches = 0;
};

/// `o` with the host mix of the real A100 trace hta_negative_queue_length_a100 (per kernel:
/// ~4.3 event polls, ~2.9 launch-free aten ops, ~0.2 device copies).
[[nodiscard]] synthetic_options with_kineto_host_mix(synthetic_options o);

/// Events one step of one device adds (host rows included); exact.
[[nodiscard]] std::int64_t synthetic_events_per_step(synthetic_options const& options);

/// The steps the trace will have after `target_events` is applied.
[[nodiscard]] std::int32_t synthetic_steps(synthetic_options const& options);

/// Appends one input, path "generated:seed=S", format "synthetic", to `table` and finishes it.
/// Throws std::invalid_argument for non-positive counts.
void generate_synthetic_trace(synthetic_options const& options, event_table& table);

}  // namespace tracesweep
