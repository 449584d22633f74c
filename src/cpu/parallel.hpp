// SPDX-License-Identifier: Apache-2.0
// Fork-join helper for the CPU backend: one callable per worker index, as tasks of the one task
// system (task_threads.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include <tracesweep/task_threads.hpp>

namespace tracesweep::cpu {

/// Threads actually worth using for `n` items given a budget of `threads` and a minimum amount of
/// work per thread. Never returns 0.
[[nodiscard]] inline unsigned useful_threads(unsigned threads, std::size_t n,
                                             std::size_t min_per_thread = 1 << 16) {
  std::size_t const by_size = std::max<std::size_t>(1, n / min_per_thread);
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, by_size)));
}

/// Calls fn(worker) for worker in [0, workers) on an arena of `workers` threads. Returns when
/// all are done. Workers must not wait for each other (TBB runs them concurrently only when it
/// has the threads).
template <typename Fn>
void fork_join(unsigned workers, Fn&& fn) {
  run_workers(workers, std::forward<Fn>(fn));
}

/// [begin, end) of chunk `w` when `n` items are split into `workers` contiguous chunks.
[[nodiscard]] inline std::pair<std::size_t, std::size_t> chunk_range(std::size_t n,
                                                                     unsigned workers, unsigned w) {
  return {n * w / workers, n * (w + 1) / workers};
}

}  // namespace tracesweep::cpu
