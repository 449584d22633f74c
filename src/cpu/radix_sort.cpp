// SPDX-License-Identifier: Apache-2.0
#include "radix_sort.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "parallel.hpp"

namespace tracesweep::cpu {
namespace {

constexpr int digit_bits = 8;
constexpr std::size_t radix = std::size_t{1} << digit_bits;
constexpr std::size_t small_sort_limit = 64;
using histogram = std::array<std::size_t, radix>;

template <typename V>
constexpr bool has_payload = !std::is_same_v<V, no_payload>;

/// Stable insertion sort for tiny inputs.
template <typename V>
void insertion_sort(std::uint64_t* keys, V* values, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    std::uint64_t const k = keys[i];
    V v{};
    if constexpr (has_payload<V>) v = values[i];
    std::size_t j = i;
    for (; j > 0 && keys[j - 1] > k; --j) {
      keys[j] = keys[j - 1];
      if constexpr (has_payload<V>) values[j] = values[j - 1];
    }
    keys[j] = k;
    if constexpr (has_payload<V>) values[j] = v;
  }
}

/// Histograms of every digit of keys[begin, end) in one read.
void count_all_digits(std::uint64_t const* keys, std::size_t begin, std::size_t end, int passes,
                      histogram* hist) {
  for (int p = 0; p < passes; ++p) hist[p].fill(0);
  for (std::size_t i = begin; i < end; ++i) {
    std::uint64_t k = keys[i];
    for (int p = 0; p < passes; ++p) {
      ++hist[p][k & (radix - 1)];
      k >>= digit_bits;
    }
  }
}

void count_digit(std::uint64_t const* keys, std::size_t begin, std::size_t end, int shift,
                 histogram& hist) {
  hist.fill(0);
  for (std::size_t i = begin; i < end; ++i) ++hist[(keys[i] >> shift) & (radix - 1)];
}

template <typename V>
void scatter(std::uint64_t const* src_k, V const* src_v, std::uint64_t* dst_k, V* dst_v,
             std::size_t begin, std::size_t end, int shift, histogram const& start_offsets) {
  // A local copy: the compiler may keep it apart from the destination stores (size_t and
  // uint64_t are the same type, so the caller's array could alias dst_k).
  histogram offsets = start_offsets;
  for (std::size_t i = begin; i < end; ++i) {
    std::uint64_t const k = src_k[i];
    std::size_t const pos = offsets[(k >> shift) & (radix - 1)]++;
    dst_k[pos] = k;
    if constexpr (has_payload<V>) dst_v[pos] = src_v[i];
  }
}

}  // namespace

template <typename V>
void radix_sort(std::span<std::uint64_t> keys, std::span<V> values, int end_bit, unsigned threads) {
  std::size_t const n = keys.size();
  if constexpr (has_payload<V>) {
    if (values.size() != n)
      throw std::invalid_argument("radix_sort: keys and values differ in size");
  }
  V* const vals = has_payload<V> ? values.data() : nullptr;
  if (n < 2) return;
  if (n <= small_sort_limit) {
    insertion_sort(keys.data(), vals, n);
    return;
  }
  if (std::is_sorted(keys.begin(), keys.end())) return;  // stable: nothing moves

  end_bit = std::clamp(end_bit, 1, 64);
  int const passes = (end_bit + digit_bits - 1) / digit_bits;
  unsigned const workers = useful_threads(std::max(1u, threads), n);

  // One read gives every digit's global histogram, to find the passes that can be skipped.
  std::vector<histogram> per_worker(std::size_t{workers} * passes);
  fork_join(workers, [&](unsigned w) {
    auto const [b, e] = chunk_range(n, workers, w);
    count_all_digits(keys.data(), b, e, passes, per_worker.data() + std::size_t{w} * passes);
  });

  std::unique_ptr<std::uint64_t[]> tmp_k(new std::uint64_t[n]);
  std::unique_ptr<V[]> tmp_v;
  if constexpr (has_payload<V>) tmp_v.reset(new V[n]);

  std::uint64_t* src_k = keys.data();
  V* src_v = vals;
  std::uint64_t* dst_k = tmp_k.get();
  V* dst_v = tmp_v.get();

  std::vector<histogram> offsets(workers);
  bool scattered = false;
  for (int p = 0; p < passes; ++p) {
    int const shift = p * digit_bits;
    histogram total{};
    for (unsigned w = 0; w < workers; ++w)
      for (std::size_t d = 0; d < radix; ++d)
        total[d] += per_worker[std::size_t{w} * passes + p][d];
    if (std::any_of(total.begin(), total.end(), [n](std::size_t c) { return c == n; })) continue;

    // Per-worker histograms of the current layout (the first read counted the original layout,
    // which is the current one only before the first scatter, or when there is one worker).
    if (workers > 1 && scattered) {
      fork_join(workers, [&](unsigned w) {
        auto const [b, e] = chunk_range(n, workers, w);
        count_digit(src_k, b, e, shift, per_worker[std::size_t{w} * passes + p]);
      });
    }
    std::size_t running = 0;
    for (std::size_t d = 0; d < radix; ++d) {
      for (unsigned w = 0; w < workers; ++w) {
        offsets[w][d] = running;
        running += per_worker[std::size_t{w} * passes + p][d];
      }
    }
    fork_join(workers, [&](unsigned w) {
      auto const [b, e] = chunk_range(n, workers, w);
      scatter(src_k, src_v, dst_k, dst_v, b, e, shift, offsets[w]);
    });
    std::swap(src_k, dst_k);
    std::swap(src_v, dst_v);
    scattered = true;
  }

  if (src_k != keys.data()) {
    fork_join(workers, [&](unsigned w) {
      auto const [b, e] = chunk_range(n, workers, w);
      std::memcpy(keys.data() + b, src_k + b, (e - b) * sizeof(std::uint64_t));
      if constexpr (has_payload<V>) std::memcpy(vals + b, src_v + b, (e - b) * sizeof(V));
    });
  }
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
