// SPDX-License-Identifier: Apache-2.0
// find_duplicates. Rows: one bit per correlation id of each (kind, rank) finds the rows whose
// (kind, rank, id) repeats, and only those are compared in full (none in a trace without copies).
// Memory events, and rows whose ids are too scattered for a bit each: hash every compared event,
// group the hashes by their top bits, find the hashes that repeat within each group with a small
// cache-resident table, and compare in full only the events whose hash repeats.
#include "ingest/duplicate_events.hpp"

#include <tracesweep/recent_keys.hpp>
#include <tracesweep/task_threads.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tracesweep::detail {

namespace {

/// splitmix64's finaliser: every bit of `x` moves every bit of the result.
std::uint64_t mixed(std::uint64_t x) noexcept {
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27, x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One hash of a tuple's fields, never 0: each field multiplied in, then one full mix. Equal
/// keys hash equal; unequal keys that collide only cost a full comparison later.
template <class Tuple>
std::uint64_t hash_of(Tuple const& key) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  std::apply(
      [&](auto const&... v) {
        ((h = (h ^ static_cast<std::uint64_t>(v)) * 0xff51afd7ed558ccdULL), ...);
      },
      key);
  return mixed(h) | 1;
}

/// Hashes grouped by their top `bits` bits, each kept as its low 32 bits: group g is
/// [start[g], start[g + 1]) of `low`. A hash is told by its group and low bits (`told`).
struct hash_groups {
  int bits = 0;
  std::unique_ptr<std::uint32_t[]> low;
  std::vector<std::size_t> start;

  [[nodiscard]] std::size_t group_of(std::uint64_t h) const noexcept {
    return bits == 0 ? 0 : static_cast<std::size_t>(h >> (64 - bits));
  }
  /// The part of `h` the groups keep: the group's bits and the low 32 bits (never 0).
  [[nodiscard]] std::uint64_t told(std::uint64_t h) const noexcept {
    auto const top = bits == 0 ? std::uint64_t{0} : h >> (64 - bits) << (64 - bits);
    return top | (h & 0xffffffffULL);
  }
};

/// The hashes of the items of [first, end) that `compared` accepts, grouped in two passes over
/// the items (count, then place) in chunks of a fixed size taken by any thread: where a hash is
/// placed does not depend on the thread count.
template <class Hash, class Compared>
hash_groups group_hashes(std::size_t first, std::size_t end, Hash const& hash,
                         Compared const& compared) {
  hash_groups g;
  auto const n = end - first;
  // About 4 Ki hashes (16 KiB) a group, at most 1024 groups.
  g.bits = std::min(10, static_cast<int>(std::bit_width(n / 4096)));
  auto const groups = std::size_t{1} << g.bits;
  constexpr std::size_t chunk = std::size_t{1} << 16;
  auto const chunks = (n + chunk - 1) / chunk;
  std::vector<std::size_t> place(chunks * groups, 0);  // counts, then each chunk's next slot
  auto const for_each_chunk = [&](auto const& body) {
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      auto* const slots = place.data() + c * groups;
      for (auto i = first + c * chunk, e = std::min(end, i + chunk); i < e; ++i)
        if (compared(i)) body(slots, hash(i));
    });
  };
  for_each_chunk([&](std::size_t* count, std::uint64_t h) { ++count[g.group_of(h)]; });
  g.start.assign(groups + 1, 0);
  std::size_t total = 0;
  for (std::size_t grp = 0; grp < groups; ++grp) {
    g.start[grp] = total;
    for (std::size_t c = 0; c < chunks; ++c) {
      auto& slot = place[c * groups + grp];
      auto const count = slot;
      slot = total;
      total += count;
    }
  }
  g.start[groups] = total;
  g.low = std::make_unique_for_overwrite<std::uint32_t[]>(total);  // every slot written below
  for_each_chunk([&](std::size_t* next, std::uint64_t h) {
    g.low[next[g.group_of(h)]++] = static_cast<std::uint32_t>(h);
  });
  return g;
}

/// The low bits found more than once in `low`, each once (in no particular order): inserted into
/// an open-addressing table twice its size (0 marks an empty slot: hashes are odd).
void add_repeated(std::span<std::uint32_t const> low, std::vector<std::uint32_t>& out) {
  auto const size = std::bit_ceil(std::max<std::size_t>(2 * low.size(), 16));
  std::vector<std::uint32_t> table(size, 0);
  std::vector<std::uint8_t> seen_twice(size, 0);
  for (auto h : low) {
    auto slot = static_cast<std::size_t>(mixed(h)) & (size - 1);
    while (table[slot] != 0 && table[slot] != h) slot = (slot + 1) & (size - 1);
    if (table[slot] == 0) {
      table[slot] = h;
    } else if (!seen_twice[slot]) {
      seen_twice[slot] = 1;
      out.push_back(h);
    }
  }
}

/// The hashes (as `told` keeps them) that repeat among those `group_hashes` gives, ascending.
std::vector<std::uint64_t> repeated_hashes(hash_groups const& g) {
  auto const groups = g.start.size() - 1;
  std::vector<std::vector<std::uint32_t>> per_group(groups);
  tbb::parallel_for(std::size_t{0}, groups, [&](std::size_t grp) {
    add_repeated({g.low.get() + g.start[grp], g.low.get() + g.start[grp + 1]}, per_group[grp]);
  });
  std::vector<std::uint64_t> out;
  for (std::size_t grp = 0; grp < groups; ++grp)
    for (auto low : per_group[grp])
      out.push_back((g.bits == 0 ? 0 : std::uint64_t{grp} << (64 - g.bits)) | low);
  std::sort(out.begin(), out.end());
  return out;
}

/// The items of [first, end) (those `compared` accepts) whose key equals an earlier one's. Items
/// are first told apart by a hash of `hashed`, part of the key enough to tell almost all apart.
template <class Key, class Hashed, class Compared>
std::vector<std::size_t> repeated(std::size_t first, std::size_t end, Key const& key,
                                  Hashed const& hashed, Compared const& compared) {
  auto const hash = [&hashed](std::size_t i) { return hash_of(hashed(i)); };
  auto const groups = group_hashes(first, end, hash, compared);
  auto const twice = repeated_hashes(groups);
  if (twice.empty()) return {};
  // The few items whose hash repeats, by (hash, key, index): a copy follows its original.
  std::vector<std::pair<std::uint64_t, std::size_t>> suspects;
  for (auto i = first; i < end; ++i) {
    if (!compared(i)) continue;
    auto const h = groups.told(hash(i));
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

/// The later copies among `suspects` (rows, any order): sorted by key, then row, each row whose
/// key equals the one before it.
template <class Key>
std::vector<std::size_t> copies_among(std::vector<std::size_t> suspects, Key const& key) {
  std::sort(suspects.begin(), suspects.end(), [&](std::size_t a, std::size_t b) {
    auto const ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : a < b;
  });
  std::vector<std::size_t> out;
  for (std::size_t s = 1; s < suspects.size(); ++s)
    if (key(suspects[s]) == key(suspects[s - 1])) out.push_back(suspects[s]);
  std::sort(out.begin(), out.end());
  return out;
}

/// The correlation ids of one (kind, rank) of an input: [lo, hi], bits from `offset` on.
struct id_range {
  event_kind kind;
  std::int32_t rank;
  std::int64_t lo, hi;
  std::size_t offset = 0;
  [[nodiscard]] std::size_t bits() const noexcept { return static_cast<std::size_t>(hi - lo + 1); }
};

/// The index in `ranges` of (kind, rank), ranges.size() when none: a search of the few ranges.
std::size_t range_of(std::vector<id_range> const& ranges, event_kind kind, std::int32_t rank) {
  auto const is_its = [&](id_range const& r) { return r.kind == kind && r.rank == rank; };
  return static_cast<std::size_t>(std::find_if(ranges.begin(), ranges.end(), is_its) -
                                  ranges.begin());
}

/// Whether row i's correlation id fits the column (has a bit of its (kind, rank)).
bool has_narrow_id(event_table const& t, std::size_t i) {
  auto const c = t.correlation[i];
  return c != -1 && c != event_table::wide_correlation;
}

/// range_of with a memo of the (kind, rank) pairs looked up lately: rows of a few kinds and
/// ranks come in long runs (Kineto) or interleaved (nsys tables in start order).
class range_finder {
 public:
  explicit range_finder(std::vector<id_range> const& ranges) : _ranges(ranges) {}
  /// The index of row i's (kind, rank) in the ranges, their size when none.
  std::size_t operator()(event_table const& t, std::size_t i) {
    auto const key = std::int64_t{t.rank[i]} * 256 + static_cast<std::uint8_t>(t.kind[i]);
    if (auto const* known = _recent.find(key)) return *known;
    auto const at = range_of(_ranges, t.kind[i], t.rank[i]);
    if (at < _ranges.size()) _recent.put(key, at);  // (not an absent one: it may be added)
    return at;
  }

 private:
  std::vector<id_range> const& _ranges;
  recent_integers<std::int64_t, std::size_t> _recent;
};

/// The (kind, rank) ranges of rows [first, end) with a correlation id that fits the column, in
/// the order of their first such row, and the number of such rows; nullopt past 256 ranges.
std::optional<std::pair<std::vector<id_range>, std::size_t>> chunk_ranges(event_table const& t,
                                                                          std::size_t first,
                                                                          std::size_t end) {
  std::vector<id_range> ranges;
  range_finder find(ranges);
  std::size_t rows = 0;
  for (auto i = first; i < end; ++i) {
    if (!has_narrow_id(t, i)) continue;
    ++rows;
    auto const c = t.correlation[i];
    auto const at = find(t, i);
    if (at == ranges.size()) {
      if (ranges.size() == 256) return std::nullopt;
      ranges.push_back({t.kind[i], t.rank[i], c, c});
    }
    ranges[at].lo = std::min<std::int64_t>(ranges[at].lo, c);
    ranges[at].hi = std::max<std::int64_t>(ranges[at].hi, c);
  }
  return std::pair{std::move(ranges), rows};
}

/// The ranges of all rows (chunk_ranges of the whole), from each chunk's in chunk order, with
/// their bit offsets; nullopt when the ids are too scattered for a bit each (more ranges than a
/// short search handles, or more than 64 bits a row).
std::optional<std::vector<id_range>> id_ranges(event_table const& t, item_chunks const& chunks) {
  std::vector<std::optional<std::pair<std::vector<id_range>, std::size_t>>> parts(chunks.workers);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    parts[w] = chunk_ranges(t, b, e);
  });
  std::vector<id_range> ranges;
  std::size_t rows = 0;
  for (auto const& part : parts) {
    if (!part) return std::nullopt;
    rows += part->second;
    for (auto const& r : part->first) {
      auto const at = range_of(ranges, r.kind, r.rank);
      if (at < ranges.size()) {
        ranges[at].lo = std::min(ranges[at].lo, r.lo),
        ranges[at].hi = std::max(ranges[at].hi, r.hi);
      } else if (ranges.size() == 256) {
        return std::nullopt;
      } else {
        ranges.push_back(r);
      }
    }
  }
  std::size_t bits = 0;
  for (auto& r : ranges) r.offset = bits, bits += r.bits();
  if (bits > 64 * rows + 4096) return std::nullopt;
  return ranges;
}

/// The rows of [first, end) whose (kind, rank, correlation) another row has too, and those whose
/// id is kept in wide_correlations, ascending: the only rows that can be copies. One bit per id
/// of each (kind, rank), in three passes over three columns (a trace without copies takes two),
/// each in chunks on the threads; nullopt when id_ranges finds the ids too scattered.
std::optional<std::vector<std::size_t>> rows_sharing_an_id(event_table const& t, std::size_t first,
                                                           std::size_t end, unsigned threads) {
  // (chunks of 2^16 rows and more: each pass over a chunk is a plain loop over three columns)
  item_chunks const chunks(first, end, resolve_threads(threads), std::size_t{1} << 16);
  auto const ranges = id_ranges(t, chunks);
  if (!ranges) return std::nullopt;
  std::size_t const bits = ranges->empty() ? 0 : ranges->back().offset + ranges->back().bits();
  std::vector<std::uint64_t> seen((bits + 63) / 64, 0), shared((bits + 63) / 64, 0);
  // Calls f(i, bit) for each row of [b, e) with an id that fits the column (id_ranges gave its
  // (kind, rank) a range), and wide(i) for each whose id is kept apart, in row order.
  auto const each_id = [&](std::size_t b, std::size_t e, auto&& f, auto&& wide) {
    range_finder find(*ranges);
    for (auto i = b; i < e; ++i) {
      auto const c = t.correlation[i];
      if (c == -1) continue;
      if (c == event_table::wide_correlation) {
        wide(i);
        continue;
      }
      auto const& r = (*ranges)[find(t, i)];
      f(i, r.offset + static_cast<std::size_t>(c - r.lo));
    }
  };
  // A bit is shared when a second row sets it, whichever chunk sets it first.
  std::vector<std::uint8_t> any_shared(chunks.workers, 0), any_wide(chunks.workers, 0);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    each_id(
        b, e,
        [&](std::size_t, std::size_t bit) {
          auto const mask = std::uint64_t{1} << (bit % 64);
          if (std::atomic_ref(seen[bit / 64]).fetch_or(mask, std::memory_order_relaxed) & mask) {
            std::atomic_ref(shared[bit / 64]).fetch_or(mask, std::memory_order_relaxed);
            any_shared[w] = 1;
          }
        },
        [&](std::size_t) { any_wide[w] = 1; });
  });
  std::vector<std::size_t> out;
  auto const none = [](std::vector<std::uint8_t> const& v) {
    return std::find(v.begin(), v.end(), 1) == v.end();
  };
  if (none(any_shared) && none(any_wide)) return out;
  std::vector<std::vector<std::size_t>> parts(chunks.workers);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    each_id(
        b, e,
        [&](std::size_t i, std::size_t bit) {
          if (shared[bit / 64] & (std::uint64_t{1} << (bit % 64))) parts[w].push_back(i);
        },
        [&](std::size_t i) { parts[w].push_back(i); });
  });
  for (auto const& part : parts) out.insert(out.end(), part.begin(), part.end());
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
  // (a row's kind, correlation and start tell apart all but its copies)
  auto const row_hashed = [&t](std::size_t i) {
    return std::make_tuple(static_cast<int>(t.kind[i]), t.correlation[i], t.start_ns[i]);
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
    if (auto suspects = rows_sharing_an_id(t, rows.first, rows.second, threads))
      found.rows = copies_among(std::move(*suspects), row_key);
    else
      found.rows = repeated(rows.first, rows.second, row_key, row_hashed, row_compared);
    found.memory_events = repeated(memory.first, memory.second, memory_key, memory_key,
                                   [](std::size_t) { return true; });
  });
  return found;
}

}  // namespace tracesweep::detail
