// SPDX-License-Identifier: Apache-2.0
// A direct-mapped memo of keys looked up lately: rows that interleave a few keys in any order
// (the processes and devices of an nsys export, whose tables are in start order) find most of
// them here, without the search or hash behind it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <tracesweep/task_threads.hpp>

namespace tracesweep {

/// Up to `Slots` keys, each with its value, in the slot its hash picks; a key put where another
/// was pushes that one out. `Bits` is a callable giving 64 bits of the key; `Equal` compares two.
template <class Key, class Value, class Bits, class Equal = std::equal_to<>, std::size_t Slots = 64>
class recent_keys {
  static_assert(std::has_single_bit(Slots) && Slots > 1);

 public:
  /// The value put with `key`, nullptr when its slot holds another key or none.
  [[nodiscard]] Value const* find(Key const& key) const noexcept {
    auto const& s = _slots[slot_of(key)];
    return s.used && Equal{}(s.key, key) ? &s.value : nullptr;
  }
  /// Puts `key` with `value` into its slot.
  void put(Key const& key, Value const& value) noexcept {
    _slots[slot_of(key)] = {key, value, true};
  }

 private:
  struct slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  static std::size_t slot_of(Key const& key) noexcept {
    constexpr int shift = 64 - std::countr_zero(Slots);  // the product's top bits mix every bit
    return static_cast<std::size_t>((Bits{}(key)*0x9E3779B97F4A7C15ull) >> shift);
  }
  std::array<slot, Slots> _slots{};
};

/// The bits of an integer key.
struct integer_bits {
  template <class T>
  std::uint64_t operator()(T v) const noexcept {
    return static_cast<std::uint64_t>(v);
  }
};

/// recent_keys of an integer key.
template <class Key, class Value, std::size_t Slots = 64>
using recent_integers = recent_keys<Key, Value, integer_bits, std::equal_to<>, Slots>;

/// The distinct keys key_of(i) of the items [first, end) that have one (key_of returns a
/// std::optional<Key>), ascending: for few keys in runs or interleaved (an input's ranks, its
/// processes, the GPUs of the kernels). Each chunk of at least 2^16 items, on `threads` threads (a
/// count), lists a key only when its memo (recent_keys with `Bits`) has not met it lately.
template <class Key, class Bits, class KeyOf>
[[nodiscard]] std::vector<Key> distinct_keys(std::size_t first, std::size_t end, unsigned threads,
                                             KeyOf const& key_of) {
  item_chunks const chunks(first, end, threads, std::size_t{1} << 16);
  std::vector<std::vector<Key>> found(chunks.workers);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [from, to] = chunks[w];
    recent_keys<Key, bool, Bits> seen;
    for (auto i = from; i < to; ++i)
      if (auto const k = key_of(i); k && !seen.find(*k)) found[w].push_back(*k), seen.put(*k, true);
  });
  std::vector<Key> keys;
  for (auto const& f : found) keys.insert(keys.end(), f.begin(), f.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

/// distinct_keys of an integer key that every item has.
template <class Key, class KeyOf>
[[nodiscard]] std::vector<Key> distinct_integers(std::size_t first, std::size_t end,
                                                 unsigned threads, KeyOf const& key_of) {
  return distinct_keys<Key, integer_bits>(
      first, end, threads, [&](std::size_t i) { return std::optional<Key>(key_of(i)); });
}

}  // namespace tracesweep
