// SPDX-License-Identifier: Apache-2.0
// Plain C++ shared by the CUDA backend and its CPU-compiled twin: key normalisation, radix-sort
// bit ranges and pass planning, chunk sizing, and the host-side stitching of per-chunk results.
// No device code here, so every function has ordinary unit tests (tests/cuda/planning_test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tracesweep/intervals.hpp>

namespace tracesweep::cuda_detail {

/// Number of significant bits of `v` (0 for 0, 64 for values ≥ 2^63).
[[nodiscard]] constexpr int bits_for(std::uint64_t v) noexcept {
  int b = 0;
  while (v != 0) {
    ++b;
    v >>= 1;
  }
  return b;
}

/// `v − lo` as an unsigned offset: exact for any lo ≤ v (the range of two int64 fits in 64 bits).
[[nodiscard]] constexpr std::uint64_t normalise(std::int64_t v, std::int64_t lo) noexcept {
  return static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(lo);
}

/// One column of a composite sort key after normalisation: its significant bit count.
/// One radix pass packs adjacent columns as (col_a << shift_a) | (col_b << shift_b) | …
struct packed_column {
  int column = 0;  ///< index into the key columns, 0 = most significant
  int shift = 0;   ///< left shift inside the packed 64-bit key
};
struct sort_pass {
  std::vector<packed_column> columns;
  int end_bit = 0;  ///< bits of the packed key in use (1…64)
};

/// Plans a lexicographic stable sort by key columns (most significant first) whose normalised
/// values need `bits[i]` bits, as a sequence of stable 64-bit radix passes to run in order (least
/// significant pass first). Adjacent columns share a pass while their bits fit in 64; columns of
/// 0 bits (constant) are dropped; an empty plan means the input is already in order.
[[nodiscard]] std::vector<sort_pass> plan_sort_passes(std::span<int const> bits);

/// Rows one chunk may hold so that `bytes_per_row` × rows stays within `limit_bytes`
/// (at least 1). `limit_bytes` 0 = no limit.
[[nodiscard]] std::size_t rows_per_chunk(std::size_t limit_bytes, std::size_t bytes_per_row,
                                         std::size_t rows) noexcept;

/// An upper bound of the temporary storage cub::DeviceRadixSort::SortPairs asks for with a
/// DoubleBuffer (the onesweep path: per-pass digit bins, the decoupled look-back of tiles taken
/// as ≥ 1024 items, pass counters, each aligned to 256 bytes) for `n` items over `end_bit` bits:
/// about 1 byte a row plus 9.5 KiB. The twin allocates this figure where CUB would allocate;
/// the CUDA context allocates what CUB asks for and counts that.
[[nodiscard]] std::size_t radix_sort_temp_bytes(std::size_t n, int end_bit) noexcept;

/// The share of a device-memory budget one of `workers` backends in use at once may take.
[[nodiscard]] constexpr std::size_t budget_share(std::size_t budget, unsigned workers) noexcept {
  return workers > 1 ? budget / workers : budget;
}

/// [begin, end) row ranges of at most `chunk_rows` rows covering [0, rows).
struct row_range {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] std::size_t size() const noexcept { return end - begin; }
  friend bool operator==(row_range const&, row_range const&) = default;
};
[[nodiscard]] std::vector<row_range> split_rows(std::size_t rows, std::size_t chunk_rows);

// ---- stitching ---------------------------------------------------------------------------

/// Stable k-way merge of runs that are each sorted by key: run boundaries are `runs`
/// (consecutive ranges of `keys`/`values`). Equal keys keep run order, so merging the sorted
/// chunks of an input equals a stable sort of the whole input.
void merge_sorted_runs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                       std::span<row_range const> runs);

/// The union of several per-group unions (each sorted by (group, start), disjoint).
[[nodiscard]] interval_union stitch_unions(std::vector<interval_union> const& parts);

/// Orders gaps by (group, duration desc, start) and keeps the first `top_per_group` of each
/// group (0 = all).
[[nodiscard]] std::vector<gap> select_top_gaps(std::vector<gap> gaps, std::size_t top_per_group);

/// For gap scans: the gap after each group's last union member up to its window end, and the
/// whole window of a group without members, kept when it lasts at least max(min_gap, 1).
[[nodiscard]] std::vector<gap> trailing_gaps(interval_union const& u, group_windows windows,
                                             std::int64_t min_gap);

/// Rows [lo, hi) of union `b` that can overlap the members [first, last] of a union sorted by
/// (group, start) — the part of b a chunk of a needs.
[[nodiscard]] row_range overlapping_rows(interval_union const& b, group_id first_group,
                                         std::int64_t first_start, group_id last_group,
                                         std::int64_t last_end);

/// Groups of keys, in key order, for chunked statistics: each entry is a consecutive run of
/// distinct keys whose rows total at most `chunk_rows`, or a single key holding more rows.
struct key_chunk {
  std::uint32_t first_key = 0;
  std::uint32_t last_key = 0;
  std::size_t rows = 0;
};
[[nodiscard]] std::vector<key_chunk> plan_key_chunks(std::span<std::uint32_t const> keys,
                                                     std::size_t chunk_rows);

}  // namespace tracesweep::cuda_detail
