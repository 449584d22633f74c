// SPDX-License-Identifier: Apache-2.0
// Stable LSD radix sort of 64-bit keys with an optional payload column (8-bit digits, passes
// whose digit is the same for every key are skipped, per-thread histograms when multi-threaded).
#pragma once

#include <cstdint>
#include <span>

namespace tracesweep::cpu {

/// Payload type meaning "sort the keys only".
struct no_payload {};

/// Sorts `keys` ascending and stably, permuting `values` alongside (`values` is ignored for
/// `no_payload`, otherwise it must have keys.size() entries). Only bits [0, end_bit) of the keys
/// may be set. Uses up to `threads` threads (>= 1); the result does not depend on it.
template <typename V>
void radix_sort(std::span<std::uint64_t> keys, std::span<V> values, int end_bit, unsigned threads);

extern template void radix_sort<no_payload>(std::span<std::uint64_t>, std::span<no_payload>, int,
                                            unsigned);
extern template void radix_sort<std::uint32_t>(std::span<std::uint64_t>, std::span<std::uint32_t>,
                                               int, unsigned);
extern template void radix_sort<std::uint64_t>(std::span<std::uint64_t>, std::span<std::uint64_t>,
                                               int, unsigned);
extern template void radix_sort<std::int64_t>(std::span<std::uint64_t>, std::span<std::int64_t>,
                                              int, unsigned);

}  // namespace tracesweep::cpu
