// SPDX-License-Identifier: Apache-2.0
// Keys that come as a few ascending runs (the kernels of each stream listed in start order, one
// stream after another) need no sort: a merge of the runs visits them in order. The merge keeps
// a heap of only the runs whose keys have begun, so its cost per key is the log of the runs
// that interleave there, not of all runs. Keys are read through a callable, key(i) for position
// i, so that they need not be gathered into a column first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tracesweep::cpu {

/// Where the maximal ascending runs of a sequence begin, told position by position where it
/// descends; it gives up past `most` runs (one run, a sequence in order, is always taken).
class run_start_finder {
 public:
  explicit run_start_finder(std::size_t most) : _most(std::max<std::size_t>(1, most)) {}
  /// Position i (> 0) comes before position i - 1.
  void descent_at(std::size_t i) {
    if (_starts.size() == _most)
      _over = true;
    else if (!_over)
      _starts.push_back(i);
  }
  /// The first position of each run (0 first); empty past `most` runs.
  [[nodiscard]] std::vector<std::size_t> starts() && {
    if (_over) return {};
    return std::move(_starts);
  }

 private:
  std::size_t _most;
  std::vector<std::size_t> _starts{0};
  bool _over = false;
};

/// run_start_finder over key(0), …, key(n - 1) (n > 0).
template <typename Key>
[[nodiscard]] std::vector<std::size_t> ascending_run_starts(Key const& key, std::size_t n,
                                                            std::size_t most) {
  run_start_finder runs(most);
  for (std::size_t i = 1; i < n; ++i)
    if (key(i) < key(i - 1)) runs.descent_at(i);
  return std::move(runs).starts();
}

/// The positions [at, end) of one ascending run still to visit.
struct run_cursor {
  std::size_t at = 0;
  std::size_t end = 0;
};

/// Ascending runs of n keys: run r is [starts[r], starts[r + 1]), the last ending at n.
template <typename Key>
struct ascending_runs {
  Key const& key;
  std::size_t n;
  std::vector<std::size_t> const& starts;

  [[nodiscard]] std::size_t end_of(std::size_t r) const {
    return r + 1 < starts.size() ? starts[r + 1] : n;
  }
  /// The first position of run r whose key is not below `k`.
  [[nodiscard]] std::size_t lower_bound(std::size_t r, std::uint64_t k) const {
    std::size_t low = starts[r], high = end_of(r);
    while (low < high) {
      std::size_t const mid = low + (high - low) / 2;
      if (key(mid) < k)
        low = mid + 1;
      else
        high = mid;
    }
    return low;
  }
};

/// The runs cut into `parts` key ranges holding about as many keys each: part p's cursors visit
/// the keys in [pivot p, pivot p + 1) of every run, so the parts in turn visit every key in order.
/// The pivots are quantiles of keys sampled at evenly spaced positions.
template <typename Key>
[[nodiscard]] std::vector<std::vector<run_cursor>> split_runs(ascending_runs<Key> const& runs,
                                                              unsigned parts) {
  constexpr std::size_t samples = 4096;
  std::vector<std::uint64_t> sampled;
  if (parts > 1)
    for (std::size_t k = 0; k < samples; ++k) sampled.push_back(runs.key(k * runs.n / samples));
  std::sort(sampled.begin(), sampled.end());
  std::vector<std::size_t> cut = runs.starts;  // run r's next cut
  std::vector<std::vector<run_cursor>> out(parts);
  for (unsigned p = 0; p < parts; ++p) {
    std::vector<std::size_t> to(cut.size());
    for (std::size_t r = 0; r < to.size(); ++r)
      to[r] =
          p + 1 == parts ? runs.end_of(r) : runs.lower_bound(r, sampled[samples * (p + 1) / parts]);
    for (std::size_t r = 0; r < to.size(); ++r) out[p].push_back({cut[r], to[r]});
    cut = std::move(to);
  }
  return out;
}

/// Calls visit(i) for every position of `runs` (each ascending in key) in ascending key order;
/// equal keys in any order. The runs begun are held by their next key in a small sorted list
/// (a few interleave at a time: streams, threads), in a heap when more do.
template <typename Key, typename Visit>
void merge_runs(Key const& key, std::vector<run_cursor> const& runs, Visit&& visit) {
  struct head {  // a run's next key, where it is and where the run ends
    std::uint64_t key;
    std::size_t at, end;
  };
  std::vector<head> waiting;  // the runs not begun, by their first key
  for (auto const c : runs)
    if (c.at < c.end) waiting.push_back({key(c.at), c.at, c.end});
  std::sort(waiting.begin(), waiting.end(), [](head a, head b) { return a.key < b.key; });
  constexpr auto none = std::numeric_limits<std::uint64_t>::max();
  constexpr std::size_t listed = 16;  // begun runs held sorted, up to this many; a heap beyond
  auto const later = [](head const& a, head const& b) { return a.key > b.key; };
  std::vector<head> begun;  // sorted descending (smallest last) while small, else a min-heap
  bool heap = false;
  std::size_t next = 0;  // the first run not begun
  auto const smallest = [&]() -> head& { return heap ? begun.front() : begun.back(); };
  auto const insert = [&](head h) {
    if (!heap && begun.size() == listed) {
      std::make_heap(begun.begin(), begun.end(), later);
      heap = true;
    }
    begun.push_back(h);
    if (heap) {
      std::push_heap(begun.begin(), begun.end(), later);
      return;
    }
    auto at = begun.end() - 1;  // keep smallest last: shift smaller ones up
    for (; at != begun.begin() && (at - 1)->key < h.key; --at) *at = *(at - 1);
    *at = h;
  };
  for (;;) {
    while (next < waiting.size() && (begun.empty() || waiting[next].key <= smallest().key))
      insert(waiting[next++]);
    if (begun.empty()) return;
    head h = smallest();
    if (heap) std::pop_heap(begun.begin(), begun.end(), later);
    begun.pop_back();
    // Visit the smallest run while its keys stay at or below every other run's next key.
    std::uint64_t const bound = std::min(begun.empty() ? none : smallest().key,
                                         next < waiting.size() ? waiting[next].key : none);
    do {
      visit(h.at);
      if (++h.at == h.end) break;
      h.key = key(h.at);
    } while (h.key <= bound);
    if (h.at < h.end) insert(h);
  }
}

}  // namespace tracesweep::cpu
