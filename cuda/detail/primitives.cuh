// SPDX-License-Identifier: Apache-2.0
// The device algorithms of the CUDA backend, written once against a Context and compiled twice:
// by nvcc with the CUDA context (CUB radix sort, a hand-written kernel, Thrust on a stream with
// a pool allocator) and by g++ with the host twin context (Thrust's CPP system), which CI tests
// against the CPU backend. No extended lambdas: every operation is a functor struct.
//
// A Context provides:
//   alloc<T>(n)                 an owning buffer with data() and size()
//   policy()                    a Thrust execution policy
//   sort_pairs(keys, values, end_bit)   stable ascending sort of u64 keys + u32 values (seam:
//                               cub::DeviceRadixSort on CUDA, thrust::stable_sort_by_key on CPP)
//   mark_segment_starts(...)    seam: a hand-written kernel on CUDA, thrust::transform on CPP
//   upload(dst, src, n) / download(dst, src, n)    host↔device copies (download synchronises)
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

#include <tracesweep/intervals.hpp>
#include <tracesweep/stats.hpp>

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
struct to_range_fn {
  TRACESWEEP_HOST_DEVICE range_i64 operator()(int64_t v) const { return {v, v}; }
};
struct u32_to_range_fn {
  TRACESWEEP_HOST_DEVICE range_i64 operator()(uint32_t v) const {
    return {static_cast<int64_t>(v), static_cast<int64_t>(v)};
  }
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
struct is_segment_end_fn {
  uint8_t const* flag;
  std::size_t n;
  TRACESWEEP_HOST_DEVICE bool operator()(std::size_t i) const { return i + 1 == n || flag[i + 1]; }
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

// ---- building blocks ---------------------------------------------------------------------

template <class Context>
range_i64 value_range(Context& ctx, int64_t const* v, std::size_t n) {
  auto it = thrust::make_transform_iterator(v, to_range_fn{});
  return thrust::reduce(
      ctx.policy(), it, it + n,
      range_i64{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()},
      range_merge_fn{});
}
template <class Context>
range_i64 value_range(Context& ctx, uint32_t const* v, std::size_t n) {
  auto it = thrust::make_transform_iterator(v, u32_to_range_fn{});
  return thrust::reduce(
      ctx.policy(), it, it + n,
      range_i64{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()},
      range_merge_fn{});
}

/// The stable lexicographic order of rows by normalised key columns (most significant first):
/// the plan from plan_sort_passes, each pass one radix sort through the `sort_pairs` seam.
template <class Context, class Columns>
auto sorted_order(Context& ctx, Columns const& columns, std::span<int const> bits, std::size_t n) {
  auto order = ctx.template alloc<uint32_t>(n);
  thrust::sequence(ctx.policy(), order.data(), order.data() + n);
  auto keys = ctx.template alloc<uint64_t>(n);
  for (auto const& pass : plan_sort_passes(bits)) {
    pack_key_fn pack{};
    pack.count = static_cast<int>(pass.columns.size());
    for (int c = 0; c < pack.count; ++c) {
      pack.column[c] = columns[static_cast<std::size_t>(pass.columns[c].column)].data();
      pack.shift[c] = pass.columns[c].shift;
    }
    pack.order = order.data();
    thrust::transform(ctx.policy(), thrust::counting_iterator<std::size_t>(0),
                      thrust::counting_iterator<std::size_t>(n), keys.data(), pack);
    ctx.sort_pairs(keys, order, pass.end_bit);
  }
  return order;
}

// ---- primitives --------------------------------------------------------------------------

/// Intervals already on the device.
struct device_intervals {
  int64_t const* start;
  int64_t const* end;
  uint32_t const* group;
  std::size_t size;
};

/// Per-group union of intervals resident on the device; the result comes back to the host.
template <class Context>
interval_union union_resident(Context& ctx, device_intervals raw) {
  std::size_t const rows = raw.size;
  interval_union out;
  if (rows == 0) return out;

  // Zero-length intervals add nothing: keep the rows with end > start.
  auto kept = ctx.template alloc<uint32_t>(rows);
  auto const kept_end =
      thrust::copy_if(ctx.policy(), thrust::counting_iterator<uint32_t>(0),
                      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(rows)), kept.data(),
                      positive_length_fn{raw.start, raw.end});
  std::size_t const n = static_cast<std::size_t>(kept_end - kept.data());
  if (n == 0) return out;

  auto const start_range = value_range(ctx, raw.start, rows);
  auto const group_range = value_range(ctx, raw.group, rows);
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  columns.push_back(ctx.template alloc<uint64_t>(rows));
  columns.push_back(ctx.template alloc<uint64_t>(rows));
  thrust::transform(ctx.policy(), raw.group, raw.group + rows, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(group_range.lo)});
  thrust::transform(ctx.policy(), raw.start, raw.start + rows, columns[1].data(),
                    normalise_i64_fn{start_range.lo});
  int const bits[2] = {bits_for(static_cast<uint64_t>(group_range.hi - group_range.lo)),
                       bits_for(normalise(start_range.hi, start_range.lo))};
  // Sort only the kept rows: gather their columns first.
  for (auto& c : columns) {
    auto compact = ctx.template alloc<uint64_t>(n);
    thrust::gather(ctx.policy(), kept.data(), kept.data() + n, c.data(), compact.data());
    c = std::move(compact);
  }
  auto order = sorted_order(ctx, columns, bits, n);
  columns.clear();
  // rows of the raw columns in sorted order
  auto rows_sorted = ctx.template alloc<uint32_t>(n);
  thrust::gather(ctx.policy(), order.data(), order.data() + n, kept.data(), rows_sorted.data());
  auto start = ctx.template alloc<int64_t>(n);
  auto end = ctx.template alloc<int64_t>(n);
  auto group = ctx.template alloc<uint32_t>(n);
  thrust::gather(ctx.policy(), rows_sorted.data(), rows_sorted.data() + n, raw.start, start.data());
  thrust::gather(ctx.policy(), rows_sorted.data(), rows_sorted.data() + n, raw.end, end.data());
  thrust::gather(ctx.policy(), rows_sorted.data(), rows_sorted.data() + n, raw.group, group.data());

  // Running max of ends within each group, then segment flags and compaction.
  auto run_max = ctx.template alloc<int64_t>(n);
  thrust::inclusive_scan_by_key(ctx.policy(), group.data(), group.data() + n, end.data(),
                                run_max.data(), thrust::equal_to<uint32_t>{}, max_i64_fn{});
  auto flag = ctx.template alloc<uint8_t>(n);
  ctx.mark_segment_starts(segment_start_fn{group.data(), start.data(), run_max.data()}, flag.data(),
                          n);
  auto seg_start = ctx.template alloc<int64_t>(n);
  auto seg_end = ctx.template alloc<int64_t>(n);
  auto seg_group = ctx.template alloc<uint32_t>(n);
  auto const s_end = thrust::copy_if(ctx.policy(), start.data(), start.data() + n, flag.data(),
                                     seg_start.data(), is_set_fn{});
  std::size_t const segments = static_cast<std::size_t>(s_end - seg_start.data());
  thrust::copy_if(ctx.policy(), group.data(), group.data() + n, flag.data(), seg_group.data(),
                  is_set_fn{});
  thrust::copy_if(ctx.policy(), run_max.data(), run_max.data() + n,
                  thrust::counting_iterator<std::size_t>(0), seg_end.data(),
                  is_segment_end_fn{flag.data(), n});
  out.group.resize(segments);
  out.start.resize(segments);
  out.end.resize(segments);
  ctx.download(out.group.data(), seg_group.data(), segments);
  ctx.download(out.start.data(), seg_start.data(), segments);
  ctx.download(out.end.data(), seg_end.data(), segments);
  return out;
}

/// The three columns of host intervals, copied into buffers of the context.
template <class Context>
struct uploaded_intervals {
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) start;
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) end;
  decltype(std::declval<Context&>().template alloc<uint32_t>(0)) group;
  std::size_t size;
  [[nodiscard]] device_intervals view() const {
    return {start.data(), end.data(), group.data(), size};
  }
};

template <class Context>
uploaded_intervals<Context> upload_intervals(Context& ctx, interval_view in) {
  std::size_t const rows = in.size();
  uploaded_intervals<Context> d{ctx.template alloc<int64_t>(rows),
                                ctx.template alloc<int64_t>(rows),
                                ctx.template alloc<uint32_t>(rows), rows};
  ctx.upload(d.start.data(), in.start.data(), rows);
  ctx.upload(d.end.data(), in.end.data(), rows);
  ctx.upload(d.group.data(), in.group.data(), rows);
  return d;
}

/// Per-group union of host intervals: one upload of the columns, then union_resident.
template <class Context>
interval_union union_on_device(Context& ctx, interval_view in) {
  if (in.size() == 0) return {};
  auto const d = upload_intervals(ctx, in);
  return union_resident(ctx, d.view());
}

/// Holes before the members [first, rows) of a slice of a union (rows before `first` give the
/// previous end), at least `min_gap` long, ordered by (group, duration desc, start), the first
/// `top_per_group` of each group kept (0 = all).
template <class Context>
std::vector<gap> gaps_on_device(Context& ctx, interval_view u, std::size_t first,
                                group_windows windows, std::int64_t min_gap,
                                std::size_t top_per_group) {
  std::size_t const rows = u.size();
  std::size_t const groups = windows.start.size();
  std::vector<gap> out;
  if (rows <= first || groups == 0) return out;
  auto const d = upload_intervals(ctx, u);
  auto ws = ctx.template alloc<int64_t>(groups);
  auto we = ctx.template alloc<int64_t>(groups);
  ctx.upload(ws.data(), windows.start.data(), groups);
  ctx.upload(we.data(), windows.end.data(), groups);

  gap_before_fn const before{d.group.data(), d.start.data(),
                             d.end.data(),   ws.data(),
                             we.data(),      groups,
                             first,          static_cast<uint64_t>(min_gap > 1 ? min_gap : 1)};
  auto rows_kept = ctx.template alloc<uint32_t>(rows);
  auto const kept_end = thrust::copy_if(
      ctx.policy(), thrust::counting_iterator<uint32_t>(0),
      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(rows)), rows_kept.data(), before);
  std::size_t const n = static_cast<std::size_t>(kept_end - rows_kept.data());
  if (n == 0) return out;
  auto g_from = ctx.template alloc<int64_t>(n);
  auto g_to = ctx.template alloc<int64_t>(n);
  auto g_group = ctx.template alloc<uint32_t>(n);
  auto g_len = ctx.template alloc<int64_t>(n);
  thrust::transform(ctx.policy(), rows_kept.data(), rows_kept.data() + n, g_from.data(),
                    gap_from_fn{before});
  thrust::transform(ctx.policy(), rows_kept.data(), rows_kept.data() + n, g_to.data(),
                    gap_to_fn{before});
  thrust::gather(ctx.policy(), rows_kept.data(), rows_kept.data() + n, d.group.data(),
                 g_group.data());
  thrust::transform(ctx.policy(), g_to.data(), g_to.data() + n, g_from.data(), g_len.data(),
                    difference_fn{});

  auto const group_range = value_range(ctx, g_group.data(), n);
  auto const len_range = value_range(ctx, g_len.data(), n);
  auto const from_range = value_range(ctx, g_from.data(), n);
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  for (int c = 0; c < 3; ++c) columns.push_back(ctx.template alloc<uint64_t>(n));
  thrust::transform(ctx.policy(), g_group.data(), g_group.data() + n, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(group_range.lo)});
  thrust::transform(ctx.policy(), g_len.data(), g_len.data() + n, columns[1].data(),
                    descending_i64_fn{len_range.hi});
  thrust::transform(ctx.policy(), g_from.data(), g_from.data() + n, columns[2].data(),
                    normalise_i64_fn{from_range.lo});
  int const bits[3] = {bits_for(static_cast<uint64_t>(group_range.hi - group_range.lo)),
                       bits_for(normalise(len_range.hi, len_range.lo)),
                       bits_for(normalise(from_range.hi, from_range.lo))};
  auto order = sorted_order(ctx, columns, bits, n);
  columns.clear();
  auto s_group = ctx.template alloc<uint32_t>(n);
  auto s_from = ctx.template alloc<int64_t>(n);
  auto s_to = ctx.template alloc<int64_t>(n);
  thrust::gather(ctx.policy(), order.data(), order.data() + n, g_group.data(), s_group.data());
  thrust::gather(ctx.policy(), order.data(), order.data() + n, g_from.data(), s_from.data());
  thrust::gather(ctx.policy(), order.data(), order.data() + n, g_to.data(), s_to.data());

  std::size_t m = n;
  if (top_per_group > 0) {
    // rank within group = exclusive count of equal groups before; keep rank < top.
    auto rank = ctx.template alloc<uint64_t>(n);
    thrust::exclusive_scan_by_key(ctx.policy(), s_group.data(), s_group.data() + n,
                                  thrust::constant_iterator<uint64_t>(1), rank.data(), uint64_t{0});
    auto c_group = ctx.template alloc<uint32_t>(n);
    auto c_from = ctx.template alloc<int64_t>(n);
    auto c_to = ctx.template alloc<int64_t>(n);
    below_fn const keep{top_per_group};
    auto const e = thrust::copy_if(ctx.policy(), s_group.data(), s_group.data() + n, rank.data(),
                                   c_group.data(), keep);
    m = static_cast<std::size_t>(e - c_group.data());
    thrust::copy_if(ctx.policy(), s_from.data(), s_from.data() + n, rank.data(), c_from.data(),
                    keep);
    thrust::copy_if(ctx.policy(), s_to.data(), s_to.data() + n, rank.data(), c_to.data(), keep);
    s_group = std::move(c_group);
    s_from = std::move(c_from);
    s_to = std::move(c_to);
  }
  std::vector<std::uint32_t> h_group(m);
  std::vector<std::int64_t> h_from(m), h_to(m);
  ctx.download(h_group.data(), s_group.data(), m);
  ctx.download(h_from.data(), s_from.data(), m);
  ctx.download(h_to.data(), s_to.data(), m);
  out.resize(m);
  for (std::size_t i = 0; i < m; ++i) out[i] = {h_group[i], h_from[i], h_to[i]};
  return out;
}

/// Exact statistics per distinct key of columns resident on the device, ordered by key.
template <class Context>
std::vector<exact_stats> stats_resident(Context& ctx, uint32_t const* keys, int64_t const* values,
                                        std::size_t n, std::span<double const> quantiles) {
  std::vector<exact_stats> out;
  if (n == 0) return out;
  auto const key_range = value_range(ctx, keys, n);
  auto const value_range_ = value_range(ctx, values, n);
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  columns.push_back(ctx.template alloc<uint64_t>(n));
  columns.push_back(ctx.template alloc<uint64_t>(n));
  thrust::transform(ctx.policy(), keys, keys + n, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(key_range.lo)});
  thrust::transform(ctx.policy(), values, values + n, columns[1].data(),
                    normalise_i64_fn{value_range_.lo});
  int const bits[2] = {bits_for(static_cast<uint64_t>(key_range.hi - key_range.lo)),
                       bits_for(normalise(value_range_.hi, value_range_.lo))};
  auto order = sorted_order(ctx, columns, bits, n);
  columns.clear();
  auto s_keys = ctx.template alloc<uint32_t>(n);
  auto s_values = ctx.template alloc<int64_t>(n);
  thrust::gather(ctx.policy(), order.data(), order.data() + n, keys, s_keys.data());
  thrust::gather(ctx.policy(), order.data(), order.data() + n, values, s_values.data());

  auto u_keys = ctx.template alloc<uint32_t>(n);
  auto u_moments = ctx.template alloc<moments>(n);
  auto const ends = thrust::reduce_by_key(
      ctx.policy(), s_keys.data(), s_keys.data() + n,
      thrust::make_transform_iterator(s_values.data(), to_moments_fn{}), u_keys.data(),
      u_moments.data(), thrust::equal_to<uint32_t>{}, moments_plus_fn{});
  std::size_t const groups = static_cast<std::size_t>(ends.first - u_keys.data());
  std::vector<std::uint32_t> h_ukeys(groups);
  std::vector<moments> h_moments(groups);
  ctx.download(h_ukeys.data(), u_keys.data(), groups);
  ctx.download(h_moments.data(), u_moments.data(), groups);

  // Order statistics: the sorted ranks every group needs, gathered in one pass.
  std::size_t const per_group = 4 + 2 * quantiles.size();
  std::vector<std::uint64_t> ranks;
  ranks.reserve(groups * per_group);
  std::uint64_t offset = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    std::uint64_t const c = h_moments[g].count;
    ranks.push_back(offset);
    ranks.push_back(offset + c - 1);
    ranks.push_back(offset + (c - 1) / 2);
    ranks.push_back(offset + c / 2);
    for (double q : quantiles) {
      auto const r = ranks_for_quantile(q, c);
      ranks.push_back(offset + r.lo);
      ranks.push_back(offset + r.hi);
    }
    offset += c;
  }
  auto d_ranks = ctx.template alloc<uint64_t>(ranks.size());
  auto d_picked = ctx.template alloc<int64_t>(ranks.size());
  ctx.upload(d_ranks.data(), ranks.data(), ranks.size());
  thrust::gather(ctx.policy(), d_ranks.data(), d_ranks.data() + ranks.size(), s_values.data(),
                 d_picked.data());
  std::vector<std::int64_t> picked(ranks.size());
  ctx.download(picked.data(), d_picked.data(), picked.size());

  out.resize(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    exact_stats& s = out[g];
    moments const& m = h_moments[g];
    std::int64_t const* p = picked.data() + g * per_group;
    if (m.overflow) throw_sum_sq_overflow(h_ukeys[g]);
    s.key = h_ukeys[g];
    s.count = m.count;
    s.sum = static_cast<int128>((static_cast<uint128>(m.sum.hi) << 64) | m.sum.lo);
    s.sum_sq = (static_cast<uint128>(m.sum_sq.hi) << 64) | m.sum_sq.lo;
    s.min = p[0];
    s.max = p[1];
    s.median_lo = p[2];
    s.median_hi = p[3];
    for (std::size_t q = 0; q < quantiles.size(); ++q) {
      s.quantile_lo.push_back(p[4 + 2 * q]);
      s.quantile_hi.push_back(p[5 + 2 * q]);
    }
  }
  return out;
}

/// Exact statistics per distinct key of host columns: one upload, then stats_resident.
template <class Context>
std::vector<exact_stats> stats_on_device(Context& ctx, std::span<std::uint32_t const> h_keys,
                                         std::span<std::int64_t const> h_values,
                                         std::span<double const> quantiles) {
  std::size_t const n = h_keys.size();
  if (n == 0) return {};
  auto keys = ctx.template alloc<uint32_t>(n);
  auto values = ctx.template alloc<int64_t>(n);
  ctx.upload(keys.data(), h_keys.data(), n);
  ctx.upload(values.data(), h_values.data(), n);
  return stats_resident(ctx, keys.data(), values.data(), n, quantiles);
}

/// Σ |a_i ∩ b| per group of the members of slice a, added into `per_group`; b is a slice of a
/// union that covers every member a can overlap.
template <class Context>
void intersection_on_device(Context& ctx, interval_view a, interval_view b,
                            std::vector<std::int64_t>& per_group) {
  std::size_t const na = a.size(), nb = b.size();
  if (na == 0 || nb == 0) return;
  auto const da = upload_intervals(ctx, a);
  auto const db = upload_intervals(ctx, b);

  auto cum = ctx.template alloc<int64_t>(nb);
  auto len = ctx.template alloc<int64_t>(nb);
  thrust::transform(ctx.policy(), db.start.data(), db.start.data() + nb, db.end.data(), len.data(),
                    length_fn{});
  thrust::exclusive_scan(ctx.policy(), len.data(), len.data() + nb, cum.data(), int64_t{0});
  coverage_fn const cover{db.group.data(), db.start.data(), db.end.data(), cum.data(), nb};
  auto overlap = ctx.template alloc<int64_t>(na);
  thrust::transform(ctx.policy(), thrust::counting_iterator<std::size_t>(0),
                    thrust::counting_iterator<std::size_t>(na), overlap.data(),
                    overlap_fn{cover, da.group.data(), da.start.data(), da.end.data()});
  auto u_group = ctx.template alloc<uint32_t>(na);
  auto u_sum = ctx.template alloc<int64_t>(na);
  auto const ends = thrust::reduce_by_key(ctx.policy(), da.group.data(), da.group.data() + na,
                                          overlap.data(), u_group.data(), u_sum.data());
  std::size_t const groups = static_cast<std::size_t>(ends.first - u_group.data());
  std::vector<std::uint32_t> h_group(groups);
  std::vector<std::int64_t> h_sum(groups);
  ctx.download(h_group.data(), u_group.data(), groups);
  ctx.download(h_sum.data(), u_sum.data(), groups);
  for (std::size_t i = 0; i < groups; ++i)
    if (h_group[i] < per_group.size()) per_group[h_group[i]] += h_sum[i];
}

}  // namespace tracesweep::cuda_detail
