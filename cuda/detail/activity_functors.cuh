// SPDX-License-Identifier: Apache-2.0
// What activity.cuh's pipeline is built from: the per-device table's columns, the rows that come
// back to the host (gaps, per-key statistics) and the functors its steps apply on the device.
// Compiled by nvcc with the CUDA context and by g++ with the host twin.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_kind.hpp>

#include "cuda/detail/primitives.cuh"

namespace tracesweep::cuda_detail {

static_assert(sizeof(event_kind) == 1);
static_assert(static_cast<int>(event_kind::kernel) == 0 &&
              static_cast<int>(event_kind::memcpy) == 1 &&
              static_cast<int>(event_kind::memset) == 2);

/// The per-device table on the device: `activity_columns` int64 columns of device_count values,
/// one after the other, in the order of device_activity_row.
enum activity_column : int {
  col_window_start,
  col_window_end,
  col_busy,
  col_kernel,
  col_memcpy,
  col_memset,
  col_communication,
  col_computation,
  col_overlap,
  col_kernel_count,
  activity_columns
};

/// One gap as it comes back to the host.
struct gap_row {
  uint32_t group;
  int64_t start;
  int64_t end;
};

/// One key's exact statistics as they come back to the host.
struct stats_row {
  uint32_t key;
  moments m;
  int64_t min;
  int64_t max;
  int64_t median_lo;
  int64_t median_hi;
};

// ---- functors ------------------------------------------------------------------------------

/// Rows of kind kernel, memcpy or memset (kind <= max_kind).
struct kind_at_most_fn {
  uint8_t const* kind;
  uint8_t max_kind;
  TRACESWEEP_HOST_DEVICE bool operator()(uint32_t row) const { return kind[row] <= max_kind; }
};

/// Dense device × kind id of an activity row: device · 3 + kind.
struct device_kind_fn {
  uint8_t const* kind;
  uint32_t const* group;
  TRACESWEEP_HOST_DEVICE uint32_t operator()(uint32_t row) const {
    return group[row] * 3 + kind[row];
  }
};

/// Kernel rows whose name is (or is not) a communication kernel.
struct communication_fn {
  uint32_t const* name;
  uint8_t const* flag;
  std::size_t flags;
  bool want;
  TRACESWEEP_HOST_DEVICE bool operator()(uint32_t row) const {
    uint32_t const n = name[row];
    return (n < flags && flag[n] != 0) == want;
  }
};

struct duration_fn {
  int64_t const* start;
  int64_t const* end;
  TRACESWEEP_HOST_DEVICE int64_t operator()(uint32_t row) const { return end[row] - start[row]; }
};

/// Window and kernel count of a run of activity rows of one device.
struct window_acc {
  int64_t lo;
  int64_t hi;
  int64_t kernels;
};
struct to_window_fn {
  int64_t const* start;
  int64_t const* end;
  uint8_t const* kind;
  TRACESWEEP_HOST_DEVICE window_acc operator()(uint32_t row) const {
    return {start[row], end[row], kind[row] == 0 ? 1 : 0};
  }
};
struct window_merge_fn {
  TRACESWEEP_HOST_DEVICE window_acc operator()(window_acc a, window_acc b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.kernels + b.kernels};
  }
};
struct window_field_fn {
  int field;  ///< 0 lo, 1 hi, 2 kernels
  TRACESWEEP_HOST_DEVICE int64_t operator()(window_acc const& w) const {
    return field == 0 ? w.lo : field == 1 ? w.hi : w.kernels;
  }
};

/// Position in the per-device table of group g's value of column `base`.
struct table_index_fn {
  std::size_t offset;
  TRACESWEEP_HOST_DEVICE std::size_t operator()(uint32_t g) const { return offset + g; }
};
/// Position of device × kind id k (device · 3 + kind) in the kernel / memcpy / memset columns.
struct kind_table_index_fn {
  std::size_t devices;
  TRACESWEEP_HOST_DEVICE std::size_t operator()(uint32_t k) const {
    return (col_kernel + k % 3) * devices + k / 3;
  }
};

struct member_length_fn {
  int64_t const* start;
  int64_t const* end;
  TRACESWEEP_HOST_DEVICE int64_t operator()(std::size_t i) const { return end[i] - start[i]; }
};

/// The gap from a device's last union member (or its window start) to its window end.
struct trailing_gap_fn {
  int64_t const* window_start;
  int64_t const* window_end;
  int64_t const* last_end;  ///< INT64_MIN for a device without members
  uint64_t shortest;
  TRACESWEEP_HOST_DEVICE int64_t from(uint32_t g) const {
    return last_end[g] > window_start[g] ? last_end[g] : window_start[g];
  }
  TRACESWEEP_HOST_DEVICE int64_t to(uint32_t g) const { return window_end[g]; }
  TRACESWEEP_HOST_DEVICE bool operator()(uint32_t g) const {
    int64_t const f = from(g), t = to(g);
    return t > f && static_cast<uint64_t>(t) - static_cast<uint64_t>(f) >= shortest;
  }
};
struct trailing_from_fn {
  trailing_gap_fn g;
  TRACESWEEP_HOST_DEVICE int64_t operator()(uint32_t i) const { return g.from(i); }
};
struct trailing_to_fn {
  trailing_gap_fn g;
  TRACESWEEP_HOST_DEVICE int64_t operator()(uint32_t i) const { return g.to(i); }
};

struct gap_row_fn {
  uint32_t const* group;
  int64_t const* from;
  int64_t const* to;
  TRACESWEEP_HOST_DEVICE gap_row operator()(std::size_t i) const {
    return {group[i], from[i], to[i]};
  }
};

struct moments_count_fn {
  TRACESWEEP_HOST_DEVICE uint64_t operator()(moments const& m) const { return m.count; }
};

/// Key i's row: its moments and the order statistics read from the values sorted by
/// (key, value), whose run for key i starts at offset[i].
struct stats_row_fn {
  uint32_t const* key;
  moments const* m;
  uint64_t const* offset;
  int64_t const* sorted;
  TRACESWEEP_HOST_DEVICE stats_row operator()(std::size_t i) const {
    uint64_t const o = offset[i], c = m[i].count;
    return {key[i], m[i], sorted[o], sorted[o + c - 1], sorted[o + (c - 1) / 2], sorted[o + c / 2]};
  }
};

}  // namespace tracesweep::cuda_detail
