// SPDX-License-Identifier: Apache-2.0
// The one task system: oneTBB. Every --threads N means the same: N workers of a TBB task arena;
// 0 means TBB's default concurrency (the CPUs this process may use). Results never depend on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tracesweep {

/// `threads` as every --threads takes it: 0 = TBB's default concurrency, else `threads` capped at
/// it (more only make TBB warn; answers do not depend on the count).
[[nodiscard]] inline unsigned resolve_threads(unsigned threads) noexcept {
  auto const limit = static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
  return threads == 0 || threads > limit ? limit : threads;
}

/// Calls fn(worker) for worker in [0, workers) as tasks of an arena of `workers` threads (the
/// calling thread takes part); returns when all are done, rethrowing the first exception.
template <typename Fn>
void run_workers(unsigned workers, Fn&& fn) {
  if (workers <= 1) {
    fn(0u);
    return;
  }
  tbb::task_arena arena(static_cast<int>(workers));
  arena.execute([&] {
    tbb::parallel_for(
        0u, workers, [&](unsigned w) { fn(w); }, tbb::static_partitioner{});
  });
}

/// `items` split into contiguous chunks, one per worker: as many workers as `threads` (a count,
/// not 0: resolve_threads a --threads value first) allows with at least `min_items` items each,
/// one at least. Chunk w is [first + n·w / workers, first + n·(w + 1) / workers) of the n items
/// from `first`.
struct item_chunks {
  std::size_t first = 0, n = 0;
  unsigned workers = 1;
  item_chunks(std::size_t first_item, std::size_t end_item, unsigned threads,
              std::size_t min_items = std::size_t{1} << 18)
      : first(first_item), n(end_item - first_item) {
    workers = static_cast<unsigned>(
        std::clamp<std::size_t>(n / std::max<std::size_t>(1, min_items), 1, std::max(1u, threads)));
  }
  /// [first_item, end_item) in exactly `workers` chunks (1 when 0), some empty when the items are
  /// fewer: for a count already chosen.
  [[nodiscard]] static item_chunks exactly(std::size_t first_item, std::size_t end_item,
                                           unsigned workers) noexcept {
    item_chunks c(first_item, end_item, 1);
    c.workers = std::max(1u, workers);
    return c;
  }
  [[nodiscard]] std::pair<std::size_t, std::size_t> operator[](unsigned w) const noexcept {
    return {first + n * w / workers, first + n * (w + 1) / workers};
  }
};

}  // namespace tracesweep
