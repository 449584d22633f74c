// SPDX-License-Identifier: Apache-2.0
// find_duplicates: hash every event of the input, sort the hashes, and compare in full only the
// events whose hash repeats (none in a trace without duplicates).
#include "ingest/duplicate_events.hpp"

#include <tracesweep/task_threads.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

namespace tracesweep::detail {

namespace {

/// splitmix64's finaliser: every bit of `x` moves every bit of the result.
std::uint64_t mixed(std::uint64_t x) noexcept {
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27, x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One hash of a tuple's fields.
template <class Tuple>
std::uint64_t hash_of(Tuple const& key) noexcept {
  std::uint64_t h = 0;
  std::apply([&](auto const&... v) { ((h = mixed(h ^ static_cast<std::uint64_t>(v))), ...); }, key);
  return h;
}

/// The items of [first, end) (those `compared` accepts) whose key equals an earlier one's.
template <class Key, class Compared>
std::vector<std::size_t> repeated(std::size_t first, std::size_t end, Key const& key,
                                  Compared const& compared) {
  std::vector<std::uint64_t> hashes(end - first);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(first, end), [&](auto const& r) {
    for (auto i = r.begin(); i != r.end(); ++i)
      hashes[i - first] = compared(i) ? hash_of(key(i)) : mixed(i) | 1;  // distinct, odd
  });
  tbb::parallel_sort(hashes.begin(), hashes.end());
  std::vector<std::uint64_t> twice;
  for (std::size_t i = 1; i < hashes.size(); ++i)
    if (hashes[i] == hashes[i - 1] && (twice.empty() || twice.back() != hashes[i]))
      twice.push_back(hashes[i]);
  hashes = {};
  if (twice.empty()) return {};
  // The few items whose hash repeats, by (hash, key, index): a copy follows its original.
  std::vector<std::pair<std::uint64_t, std::size_t>> suspects;
  for (auto i = first; i < end; ++i) {
    if (!compared(i)) continue;
    auto const h = hash_of(key(i));
    if (std::binary_search(twice.begin(), twice.end(), h)) suspects.emplace_back(h, i);
  }
  std::sort(suspects.begin(), suspects.end(), [&](auto const& a, auto const& b) {
    if (a.first != b.first) return a.first < b.first;
    auto const ka = key(a.second), kb = key(b.second);
    return ka != kb ? ka < kb : a.second < b.second;
  });
  std::vector<std::size_t> out;
  for (std::size_t s = 1; s < suspects.size(); ++s)
    if (suspects[s].first == suspects[s - 1].first &&
        key(suspects[s].second) == key(suspects[s - 1].second))
      out.push_back(suspects[s].second);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

duplicates find_duplicates(event_table const& t, unsigned threads) {
  // (plain variables, not structured bindings: clang before 16 cannot capture those)
  auto const rows = t.input_rows(t.inputs().size() - 1);
  auto const row_key = [&t](std::size_t i) {
    return std::make_tuple(static_cast<int>(t.kind[i]), t.name[i], t.start_ns[i], t.end_ns[i],
                           t.rank[i], t.device[i], t.stream[i], t.correlation_of(i));
  };
  auto const row_compared = [&t](std::size_t i) { return t.correlation[i] != -1; };
  auto const& m = t.memory;
  auto const memory_key = [&m](std::size_t j) {
    return std::make_tuple(m.time_ns[j], m.rank[j], m.device[j], m.thread[j], m.bytes[j],
                           static_cast<int>(m.pool[j]), m.allocated[j], m.reserved[j]);
  };
  auto const memory = t.current_input_memory();
  duplicates found;
  tbb::task_arena arena(static_cast<int>(resolve_threads(threads)));
  arena.execute([&] {
    found.rows = repeated(rows.first, rows.second, row_key, row_compared);
    found.memory_events =
        repeated(memory.first, memory.second, memory_key, [](std::size_t) { return true; });
  });
  return found;
}

}  // namespace tracesweep::detail
