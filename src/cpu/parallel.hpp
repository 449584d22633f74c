// SPDX-License-Identifier: Apache-2.0
// Fork-join helper for the CPU backend: runs one callable per worker index on std::threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace tracesweep::cpu {

/// Threads actually worth using for `n` items given a budget of `threads` and a minimum amount of
/// work per thread. Never returns 0.
[[nodiscard]] inline unsigned useful_threads(unsigned threads, std::size_t n,
                                             std::size_t min_per_thread = 1 << 16) {
  std::size_t const by_size = std::max<std::size_t>(1, n / min_per_thread);
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, by_size)));
}

/// Calls fn(worker) for worker in [0, workers), worker 0 on the calling thread. Returns when all
/// are done. `fn` must not throw.
template <typename Fn>
void fork_join(unsigned workers, Fn&& fn) {
  if (workers <= 1) {
    fn(0u);
    return;
  }
  std::vector<std::jthread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back([&fn, w] { fn(w); });
  fn(0u);
}

/// [begin, end) of chunk `w` when `n` items are split into `workers` contiguous chunks.
[[nodiscard]] inline std::pair<std::size_t, std::size_t> chunk_range(std::size_t n,
                                                                     unsigned workers, unsigned w) {
  return {n * w / workers, n * (w + 1) / workers};
}

}  // namespace tracesweep::cpu
