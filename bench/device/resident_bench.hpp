// SPDX-License-Identifier: Apache-2.0
// bench_device's GPU half (resident_bench.cu, nvcc): times the primitives on columns already
// resident on the GPU (the interactive case), next to the host-to-device copy that put them
// there. Benchmark code only; the tool never links it.
#pragma once

#include <cstdint>
#include <span>

#include <tracesweep/intervals.hpp>

namespace tracesweep::bench {

struct resident_times {
  double h2d_ms = 0;   ///< start, end, group, name, duration columns to the device (pinned staging)
  double sort_ms = 0;  ///< sort_pairs of 64-bit keys (start − min) with row ids, CUB radix
  double union_ms = 0;  ///< union_by_group incl. the result's copy back
  double stats_ms = 0;  ///< segmented_stats by name incl. the results' copy back
};

/// Median of `reps` runs of each. Throws cuda_error / backend_unavailable without a device.
[[nodiscard]] resident_times time_resident(interval_view intervals,
                                           std::span<std::uint32_t const> names,
                                           std::span<std::int64_t const> durations, int reps);

}  // namespace tracesweep::bench
