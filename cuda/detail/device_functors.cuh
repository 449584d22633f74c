// SPDX-License-Identifier: Apache-2.0
// The device functors of the CUDA backend's algorithms (no extended lambdas: every operation is
// a functor struct), shared by the algorithm files; see primitives.cuh for the Context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/intervals.hpp>

#include "cuda/detail/arithmetic.hpp"
#include "cuda/detail/host_device.hpp"
#include "cuda/detail/planning.hpp"

namespace tracesweep::cuda_detail {

using ::cuda::std::int64_t;
using ::cuda::std::uint32_t;
using ::cuda::std::uint64_t;
using ::cuda::std::uint8_t;

// ---- functors ------------------------------------------------------------------------------

struct range_i64 {
  int64_t lo;
  int64_t hi;
};
struct range_merge_fn {
  TRACESWEEP_HOST_DEVICE range_i64 operator()(range_i64 a, range_i64 b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};

/// Normalises an int64 column against its minimum: v − lo as u64.
struct normalise_i64_fn {
  int64_t lo;
  TRACESWEEP_HOST_DEVICE uint64_t operator()(int64_t v) const {
    return static_cast<uint64_t>(v) - static_cast<uint64_t>(lo);
  }
};
struct normalise_u32_fn {
  uint32_t lo;
  TRACESWEEP_HOST_DEVICE uint64_t operator()(uint32_t v) const { return uint64_t{v - lo}; }
};
/// hi − v as u64: sorts an int64 column descending.
struct descending_i64_fn {
  int64_t hi;
  TRACESWEEP_HOST_DEVICE uint64_t operator()(int64_t v) const {
    return static_cast<uint64_t>(hi) - static_cast<uint64_t>(v);
  }
};

/// Packs up to three normalised columns, read through the permutation, into one radix key.
struct pack_key_fn {
  uint64_t const* column[3];
  int shift[3];
  int count;
  uint32_t const* order;
  TRACESWEEP_HOST_DEVICE uint64_t operator()(std::size_t i) const {
    uint64_t k = 0;
    uint32_t const row = order[i];
    for (int c = 0; c < count; ++c) k |= column[c][row] << shift[c];
    return k;
  }
};

struct positive_length_fn {
  int64_t const* start;
  int64_t const* end;
  TRACESWEEP_HOST_DEVICE bool operator()(std::size_t i) const { return end[i] > start[i]; }
};

/// The duration (end − start) of the k-th row taken.
struct row_duration_fn {
  int64_t const* start;
  int64_t const* end;
  std::size_t const* rows;  ///< nullptr: row k is k (row_durations::every_row)
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t k) const {
    std::size_t const r = rows ? rows[k] : k;
    return end[r] - start[r];
  }
};

/// new_seg[i] = first row, new group, or a start past every end before it (touching merges).
struct segment_start_fn {
  uint32_t const* group;
  int64_t const* start;
  int64_t const* run_max_end;
  TRACESWEEP_HOST_DEVICE uint8_t operator()(std::size_t i) const {
    if (i == 0) return 1;
    return (group[i] != group[i - 1] || start[i] > run_max_end[i - 1]) ? 1 : 0;
  }
};
struct is_set_fn {
  TRACESWEEP_HOST_DEVICE bool operator()(uint8_t f) const { return f != 0; }
};
/// The end of segment k: the running max end at its last row (the row before the next
/// segment's first, or the last row).
struct segment_end_fn {
  uint32_t const* first;
  int64_t const* run_max;
  std::size_t segments;
  std::size_t n;
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t k) const {
    std::size_t const next = k + 1 < segments ? first[k + 1] : n;
    return run_max[next - 1];
  }
};
struct max_i64_fn {
  TRACESWEEP_HOST_DEVICE int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};

/// The hole before union member i inside its group's window; rows below `first` only provide
/// the previous end. Empty holes and holes shorter than `shortest` are dropped.
struct gap_before_fn {
  uint32_t const* group;
  int64_t const* start;
  int64_t const* end;
  int64_t const* window_start;
  int64_t const* window_end;
  std::size_t groups;
  std::size_t first;
  uint64_t shortest;
  TRACESWEEP_HOST_DEVICE bool has_prev(std::size_t i) const {
    if (i == 0) return false;
    return group[i - 1] == group[i];
  }
  TRACESWEEP_HOST_DEVICE int64_t from(std::size_t i) const {
    int64_t const ws = window_start[group[i]];
    if (!has_prev(i)) return ws;
    return end[i - 1] > ws ? end[i - 1] : ws;
  }
  TRACESWEEP_HOST_DEVICE int64_t to(std::size_t i) const {
    int64_t const we = window_end[group[i]];
    return start[i] < we ? start[i] : we;
  }
  TRACESWEEP_HOST_DEVICE bool operator()(std::size_t i) const {
    if (i < first || group[i] >= groups) return false;
    int64_t const f = from(i), t = to(i);
    return t > f && static_cast<uint64_t>(t) - static_cast<uint64_t>(f) >= shortest;
  }
};
struct gap_from_fn {
  gap_before_fn g;
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t i) const { return g.from(i); }
};
struct gap_to_fn {
  gap_before_fn g;
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t i) const { return g.to(i); }
};
struct difference_fn {
  TRACESWEEP_HOST_DEVICE int64_t operator()(int64_t to, int64_t from) const { return to - from; }
};
struct below_fn {
  std::size_t limit;
  TRACESWEEP_HOST_DEVICE bool operator()(uint64_t rank) const { return rank < limit; }
};

/// F_B(g, t): length of union b covered at or before (g, t) in (group, time) order, through
/// the last member whose (group, start) ≤ (g, t); members of earlier groups count fully.
struct coverage_fn {
  uint32_t const* group;
  int64_t const* start;
  int64_t const* end;
  int64_t const* cum_before;  ///< exclusive prefix sum of b's lengths
  std::size_t n;
  TRACESWEEP_HOST_DEVICE int64_t operator()(uint32_t g, int64_t t) const {
    std::size_t lo = 0, hi = n;  // first member with (group, start) > (g, t)
    while (lo < hi) {
      std::size_t const m = lo + (hi - lo) / 2;
      if (group[m] < g || (group[m] == g && start[m] <= t))
        lo = m + 1;
      else
        hi = m;
    }
    if (lo == 0) return 0;
    std::size_t const j = lo - 1;
    int64_t const len = end[j] - start[j];
    if (group[j] != g) return cum_before[j] + len;
    int64_t covered = t - start[j];
    covered = covered < 0 ? 0 : (covered > len ? len : covered);
    return cum_before[j] + covered;
  }
};
struct overlap_fn {
  coverage_fn f;
  uint32_t const* group;
  int64_t const* start;
  int64_t const* end;
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t i) const {
    return f(group[i], end[i]) - f(group[i], start[i]);
  }
};
struct length_fn {
  TRACESWEEP_HOST_DEVICE int64_t operator()(int64_t s, int64_t e) const { return e - s; }
};

[[noreturn]] inline void throw_sum_sq_overflow(std::uint32_t key) {
  throw std::overflow_error("segmented_stats: the sum of squares of key " + std::to_string(key) +
                            " exceeds 128 bits");
}

}  // namespace tracesweep::cuda_detail
