// SPDX-License-Identifier: Apache-2.0
// Stable radix sort in two phases, so that large inputs are not scattered to hundreds of
// main-memory streams pass after pass. Digits are taken from (key - block minimum), so that a
// block's key range, not the key width, sets the work (timestamps near 2^60 spanning 2^33 ns
// need 33 bits, and the top split fills all its buckets).
//   1. blocks larger than `lsd_block_limit` items get one stable MSD scatter on the top 8 bits
//      of the range (256 buckets, per-thread histograms when multi-threaded), recursively;
//   2. each block that fits in cache is finished by stable LSD passes over its own range with
//      digits of up to 11 bits; passes whose digit is equal for every key are skipped.
// A block whose keys already come in order (after a split: time-ordered rows of one group) is
// left as it is, at the cost of the pass that measures its range anyway.
// A stable MSD split followed by a stable sort of each bucket is stable, and every step is
// deterministic, so the result does not depend on the thread count (threads only split the MSD
// scatter into contiguous chunks and take whole buckets of phase 2).
#include "radix_sort.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <tracesweep/task_threads.hpp>

namespace tracesweep::cpu {
namespace {

constexpr int msd_bits = 8;
constexpr std::size_t msd_radix = std::size_t{1} << msd_bits;
constexpr int max_lsd_bits = 11;
constexpr std::size_t small_sort_limit = 64;
/// Blocks sorted by LSD passes alone: up to 2^20 items (24 MiB for both buffers of a u64 key and
/// u32 payload, about this machine's 32 MiB L3) when their range needs at most 3 passes, else up
/// to 2^18 items (one more MSD split costs less than a fourth pass over an L3-sized block).
/// Measured on 100 M keys: timestamps spanning 2^33 ns, and uniform 64-bit keys.
constexpr std::size_t lsd_block_limit(int range_bits) {
  return range_bits <= 3 * max_lsd_bits ? std::size_t{1} << 20 : std::size_t{1} << 18;
}
using msd_histogram = std::array<std::size_t, msd_radix>;

template <typename V>
constexpr bool has_payload = !std::is_same_v<V, no_payload>;

/// Keys and payloads of one buffer (payload pointer unused for no_payload).
template <typename V>
struct buffer {
  std::uint64_t* k;
  V* v;
  buffer at(std::size_t i) const { return {k + i, has_payload<V> ? v + i : v}; }
};

template <typename V>
void copy_items(buffer<V> from, buffer<V> to, std::size_t n) {
  std::memcpy(to.k, from.k, n * sizeof(std::uint64_t));
  if constexpr (has_payload<V>) std::memcpy(to.v, from.v, n * sizeof(V));
}

/// Bits [0, bits) set; none for bits <= 0.
std::uint64_t low_mask(int bits) {
  if (bits <= 0) return 0;
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

/// Smallest and largest of (key & mask) over [begin, end).
struct key_range {
  std::uint64_t min = ~std::uint64_t{0};
  std::uint64_t max = 0;
};

/// The range of (key & mask) over keys[begin, end), and whether those come in order already.
struct block_survey {
  key_range range;
  bool in_order = true;
};

block_survey survey_of(std::uint64_t const* keys, std::size_t begin, std::size_t end,
                       std::uint64_t mask) {
  block_survey s;
  std::uint64_t previous = 0;
  for (std::size_t i = begin; i < end; ++i) {
    std::uint64_t const k = keys[i] & mask;
    s.range.min = std::min(s.range.min, k);
    s.range.max = std::max(s.range.max, k);
    s.in_order = s.in_order && previous <= k;
    previous = k;
  }
  return s;
}

/// Stable insertion sort for tiny blocks.
template <typename V>
void insertion_sort(buffer<V> b, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    std::uint64_t const k = b.k[i];
    V v{};
    if constexpr (has_payload<V>) v = b.v[i];
    std::size_t j = i;
    for (; j > 0 && b.k[j - 1] > k; --j) {
      b.k[j] = b.k[j - 1];
      if constexpr (has_payload<V>) b.v[j] = b.v[j - 1];
    }
    b.k[j] = k;
    if constexpr (has_payload<V>) b.v[j] = v;
  }
}

/// The digit of a key: bits [shift, shift + width) of (key & mask) - base.
struct digit_of {
  std::uint64_t mask, base;
  int shift;
  std::uint64_t width_mask;
  std::size_t operator()(std::uint64_t k) const {
    return (((k & mask) - base) >> shift) & width_mask;
  }
};

/// Stable scatter of src[begin, end) by `digit` to dst at `offsets` (advanced in place).
template <typename V, typename Offset>
void scatter(buffer<V> src, buffer<V> dst, std::size_t begin, std::size_t end, digit_of digit,
             Offset* offsets) {
  for (std::size_t i = begin; i < end; ++i) {
    std::uint64_t const k = src.k[i];
    std::size_t const pos = offsets[digit(k)]++;
    dst.k[pos] = k;
    if constexpr (has_payload<V>) dst.v[pos] = src.v[i];
  }
}

/// LSD passes over a cache-sized block whose keys span `range`; returns true when the result
/// ended in `tmp` rather than `src`.
template <typename V>
bool lsd_sort(buffer<V> src, buffer<V> tmp, std::size_t n, std::uint64_t mask, key_range range) {
  int const bits = std::bit_width(range.max - range.min);
  int const passes = (bits + max_lsd_bits - 1) / max_lsd_bits;
  int const width = (bits + passes - 1) / passes;
  std::size_t const radix = std::size_t{1} << width;
  // n <= lsd_block_limit, so 32-bit counts suffice and the histograms stay small.
  std::vector<std::uint32_t> hist(radix * static_cast<std::size_t>(passes), 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t const x = (src.k[i] & mask) - range.min;
    for (int p = 0; p < passes; ++p) ++hist[p * radix + ((x >> (p * width)) & (radix - 1))];
  }
  bool in_tmp = false;
  for (int p = 0; p < passes; ++p) {
    std::uint32_t* const h = hist.data() + p * radix;
    if (std::find(h, h + radix, n) != h + radix) continue;  // digit equal for every key
    std::uint32_t running = 0;
    for (std::size_t d = 0; d < radix; ++d) {
      std::uint32_t const c = h[d];
      h[d] = running;
      running += c;
    }
    digit_of const digit{mask, range.min, p * width, radix - 1};
    scatter(in_tmp ? tmp : src, in_tmp ? src : tmp, 0, n, digit, h);
    in_tmp = !in_tmp;
  }
  return in_tmp;
}

/// Stable MSD scatter of src[0, n) to dst by the top 8 bits of (key & mask) - range.min, split
/// over the contiguous `chunks` of [0, n); returns the bucket start offsets (plus n at the end).
template <typename V>
std::vector<std::size_t> msd_scatter(buffer<V> src, buffer<V> dst, std::size_t n,
                                     std::uint64_t mask, key_range range,
                                     item_chunks const& chunks) {
  unsigned const workers = chunks.workers;
  int const bits = std::bit_width(range.max - range.min);
  digit_of const digit{mask, range.min, std::max(0, bits - msd_bits), msd_radix - 1};
  std::vector<msd_histogram> hist(workers);
  run_workers(workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    hist[w].fill(0);
    for (std::size_t i = b; i < e; ++i) ++hist[w][digit(src.k[i])];
  });
  std::vector<std::size_t> bucket_start(msd_radix + 1);
  std::size_t running = 0;
  for (std::size_t d = 0; d < msd_radix; ++d) {
    bucket_start[d] = running;
    for (unsigned w = 0; w < workers; ++w) {
      std::size_t const c = hist[w][d];
      hist[w][d] = running;
      running += c;
    }
  }
  bucket_start[msd_radix] = n;
  run_workers(workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    msd_histogram offsets = hist[w];  // local copy: may not alias the destination
    scatter(src, dst, b, e, digit, offsets.data());
  });
  return bucket_start;
}

/// Sorts the n items of `src` by (key & mask), with `other` as scratch of the same size; the
/// result ends in `other` when `to_other`, else in `src`. Single-threaded.
template <typename V>
void sort_block(buffer<V> src, buffer<V> other, std::size_t n, std::uint64_t mask, bool to_other) {
  if (n <= small_sort_limit) {
    insertion_sort(src, n);
    if (to_other) copy_items(src, other, n);
    return;
  }
  // A block already in order (rows read in time order, split by group above) stays as it is.
  auto const [range, in_order] = survey_of(src.k, 0, n, mask);
  int const range_bits = in_order ? 0 : std::bit_width(range.max - range.min);
  bool in_other = false;
  if (range_bits > 0 && n <= lsd_block_limit(range_bits)) {
    in_other = lsd_sort(src, other, n, mask, range);
  } else if (range_bits > 0) {
    auto const starts = msd_scatter(src, other, n, mask, range, item_chunks(0, n, 1));
    for (std::size_t d = 0; d < msd_radix; ++d)
      sort_block(other.at(starts[d]), src.at(starts[d]), starts[d + 1] - starts[d], mask,
                 !to_other);
    return;
  }
  if (in_other != to_other) copy_items(in_other ? other : src, in_other ? src : other, n);
}

}  // namespace

template <typename V>
void radix_sort(std::span<std::uint64_t> keys, std::span<V> values, int end_bit, unsigned threads) {
  std::size_t const n = keys.size();
  if constexpr (has_payload<V>) {
    if (values.size() != n)
      throw std::invalid_argument("radix_sort: keys and values differ in size");
  }
  buffer<V> const data{keys.data(), has_payload<V> ? values.data() : nullptr};
  if (n < 2) return;
  if (n <= small_sort_limit) {
    insertion_sort(data, n);
    return;
  }
  if (std::is_sorted(keys.begin(), keys.end())) return;  // stable: nothing moves

  std::uint64_t const mask = low_mask(std::clamp(end_bit, 1, 64));
  std::unique_ptr<std::uint64_t[]> tmp_k(new std::uint64_t[n]);
  std::unique_ptr<V[]> tmp_v;
  if constexpr (has_payload<V>) tmp_v.reset(new V[n]);
  buffer<V> const tmp{tmp_k.get(), tmp_v.get()};

  item_chunks const chunks(0, n, threads, std::size_t{1} << 16);
  unsigned const workers = chunks.workers;
  if (n <= lsd_block_limit(64) || workers == 1) {
    sort_block(data, tmp, n, mask, false);
    return;
  }
  // Phase 1 at the top level in parallel, then whole buckets per thread (claimed in order).
  std::vector<key_range> ranges(workers);
  run_workers(workers, [&](unsigned w) {
    auto const [b, e] = chunks[w];
    ranges[w] = survey_of(data.k, b, e, mask).range;
  });
  key_range range;
  for (auto const& r : ranges) {
    range.min = std::min(range.min, r.min);
    range.max = std::max(range.max, r.max);
  }
  if (range.min == range.max) return;  // every key equal in the sorted bits
  auto const starts = msd_scatter(data, tmp, n, mask, range, chunks);
  std::atomic<std::size_t> next{0};
  run_workers(workers, [&](unsigned) {
    for (std::size_t d; (d = next.fetch_add(1)) < msd_radix;)
      sort_block(tmp.at(starts[d]), data.at(starts[d]), starts[d + 1] - starts[d], mask, true);
  });
}

template void radix_sort<no_payload>(std::span<std::uint64_t>, std::span<no_payload>, int,
                                     unsigned);
template void radix_sort<std::uint32_t>(std::span<std::uint64_t>, std::span<std::uint32_t>, int,
                                        unsigned);
template void radix_sort<std::uint64_t>(std::span<std::uint64_t>, std::span<std::uint64_t>, int,
                                        unsigned);
template void radix_sort<std::int64_t>(std::span<std::uint64_t>, std::span<std::int64_t>, int,
                                       unsigned);

}  // namespace tracesweep::cpu
