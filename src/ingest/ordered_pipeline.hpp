// SPDX-License-Identifier: Apache-2.0
// The readers' parallel pipeline on the one task system (oneTBB): items made in order, worked on
// in parallel, finished in the same order, a few per thread in flight and their storage reused.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

namespace tracesweep::ingest {

/// Runs, on an arena of `threads`: `next(item)` in order until it returns false, `work(item)` in
/// parallel, `finish(item)` in the order `next` made them; at most 4 items a thread in flight.
/// Items are reused (what they hold keeps its storage) and all are freed at the end, also when a
/// step throws (the first exception is rethrown).
template <class Item, class Next, class Work, class Finish>
void ordered_pipeline(unsigned threads, Next&& next, Work&& work, Finish&& finish) {
  std::mutex m;
  std::vector<std::unique_ptr<Item>> owned;  // every item made
  std::vector<Item*> spare;
  auto take = [&]() -> Item* {
    std::lock_guard lock(m);
    if (!spare.empty()) {
      Item* item = spare.back();
      spare.pop_back();
      return item;
    }
    return owned.emplace_back(std::make_unique<Item>()).get();
  };
  auto give_back = [&](Item* item) {
    std::lock_guard lock(m);
    spare.push_back(item);
  };
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_pipeline(
        4 * threads,
        tbb::make_filter<void, Item*>(tbb::filter_mode::serial_in_order,
                                      [&](tbb::flow_control& fc) -> Item* {
                                        Item* item = take();
                                        if (next(*item)) return item;
                                        give_back(item);
                                        fc.stop();
                                        return nullptr;
                                      }) &
            tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel,
                                           [&](Item* item) {
                                             work(*item);
                                             return item;
                                           }) &
            tbb::make_filter<Item*, void>(tbb::filter_mode::serial_in_order, [&](Item* item) {
              finish(*item);
              give_back(item);
            }));
  });
}

}  // namespace tracesweep::ingest
