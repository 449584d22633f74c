// SPDX-License-Identifier: Apache-2.0
// The device algorithms of the CUDA backend, written once against a Context and compiled twice:
// by nvcc with the CUDA context (CUB radix sort, a hand-written kernel, Thrust on a stream with
// a pool allocator) and by g++ with the host twin context (Thrust's CPP system), which CI tests
// against the CPU backend. No extended lambdas: every operation is a functor struct.
//
// A Context provides (every call that allocates, copies or runs work takes its stream, as the
// columns of column.hpp do):
//   stream_type, stream()       the stream type and the context's own stream
//   alloc<T>(n, s)              an owning buffer with data() and size(), ordered on s
//   policy(s)                   a Thrust execution policy on s
//   sort_pairs(keys, values, end_bit, s)   stable ascending sort of u64 keys + u32 values (seam:
//                               cub::DeviceRadixSort on CUDA, thrust::stable_sort_by_key on CPP)
//   mark_segment_starts(..., s) seam: a hand-written kernel on CUDA, thrust::transform on CPP
//   upload(dst, src, n, s) / download(dst, src, n, s)   counted host↔device copies (download
//                               returns once the data is on the host); download_async and
//                               synchronize(s) for several downloads behind one wait
//   sync_point(s)               called after every Thrust call that returns a value to the host
//                               (reduce, copy_if, reduce_by_key): there the host waits for the
//                               device, which the contexts count (transfers().host_syncs)
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

// ---- building blocks ---------------------------------------------------------------------

/// The ranges of three columns (int64 or uint32, read as int64), found by one reduction.
struct ranges3 {
  range_i64 r[3];
};
template <class A, class B, class C>
struct to_ranges3_fn {
  A const* a;
  B const* b;
  C const* c;
  TRACESWEEP_HOST_DEVICE ranges3 operator()(std::size_t i) const {
    int64_t const x = static_cast<int64_t>(a[i]), y = static_cast<int64_t>(b[i]),
                  z = static_cast<int64_t>(c[i]);
    return {{{x, x}, {y, y}, {z, z}}};
  }
};
struct ranges3_merge_fn {
  TRACESWEEP_HOST_DEVICE ranges3 operator()(ranges3 const& p, ranges3 const& q) const {
    range_merge_fn const m{};
    return {{m(p.r[0], q.r[0]), m(p.r[1], q.r[1]), m(p.r[2], q.r[2])}};
  }
};

/// The value ranges of columns a, b and c of `n` rows: one reduction, so one host
/// synchronisation for all three (pass a column twice for two).
template <class Context, class A, class B, class C>
ranges3 value_ranges(Context& ctx, typename Context::stream_type s, std::size_t n, A const* a,
                     B const* b, C const* c) {
  auto const it = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0),
                                                  to_ranges3_fn<A, B, C>{a, b, c});
  range_i64 const empty{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  auto const r =
      thrust::reduce(ctx.policy(s), it, it + n, ranges3{{empty, empty, empty}}, ranges3_merge_fn{});
  ctx.sync_point(s);  // the value comes back to the host
  return r;
}

/// The stable lexicographic order of rows by normalised key columns (most significant first):
/// the plan from plan_sort_passes, each pass one radix sort through the `sort_pairs` seam.
template <class Context, class Columns>
auto sorted_order(Context& ctx, Columns const& columns, std::span<int const> bits, std::size_t n,
                  typename Context::stream_type s) {
  auto order = ctx.template alloc<uint32_t>(n, s);
  thrust::sequence(ctx.policy(s), order.data(), order.data() + n);
  auto keys = ctx.template alloc<uint64_t>(n, s);
  for (auto const& pass : plan_sort_passes(bits)) {
    pack_key_fn pack{};
    pack.count = static_cast<int>(pass.columns.size());
    for (int c = 0; c < pack.count; ++c) {
      pack.column[c] = columns[static_cast<std::size_t>(pass.columns[c].column)].data();
      pack.shift[c] = pass.columns[c].shift;
    }
    pack.order = order.data();
    thrust::transform(ctx.policy(s), thrust::counting_iterator<std::size_t>(0),
                      thrust::counting_iterator<std::size_t>(n), keys.data(), pack);
    ctx.sort_pairs(keys, order, pass.end_bit, s);
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

/// Intervals left on the device: a per-group union (sorted by (group, start)) or gaps.
template <class Context>
struct resident_intervals {
  decltype(std::declval<Context&>().template alloc<uint32_t>(0)) group;
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) start;
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) end;
  std::size_t size = 0;
  [[nodiscard]] device_intervals view() const {
    return {start.data(), end.data(), group.data(), size};
  }
};

/// Per-group union of intervals resident on the device, left on the device.
template <class Context>
resident_intervals<Context> union_device(Context& ctx, device_intervals raw,
                                         typename Context::stream_type s) {
  std::size_t const rows = raw.size;
  resident_intervals<Context> out;
  if (rows == 0) return out;

  // Zero-length intervals add nothing: keep the rows with end > start.
  auto kept = ctx.template alloc<uint32_t>(rows, s);
  auto const kept_end =
      thrust::copy_if(ctx.policy(s), thrust::counting_iterator<uint32_t>(0),
                      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(rows)), kept.data(),
                      positive_length_fn{raw.start, raw.end});
  ctx.sync_point(s);
  std::size_t const n = static_cast<std::size_t>(kept_end - kept.data());
  if (n == 0) return out;

  auto const ranges = value_ranges(ctx, s, rows, raw.start, raw.group, raw.start);
  auto const start_range = ranges.r[0];
  auto const group_range = ranges.r[1];
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  columns.push_back(ctx.template alloc<uint64_t>(rows, s));
  columns.push_back(ctx.template alloc<uint64_t>(rows, s));
  thrust::transform(ctx.policy(s), raw.group, raw.group + rows, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(group_range.lo)});
  thrust::transform(ctx.policy(s), raw.start, raw.start + rows, columns[1].data(),
                    normalise_i64_fn{start_range.lo});
  int const bits[2] = {bits_for(static_cast<uint64_t>(group_range.hi - group_range.lo)),
                       bits_for(normalise(start_range.hi, start_range.lo))};
  // Sort only the kept rows: gather their columns first.
  for (auto& c : columns) {
    auto compact = ctx.template alloc<uint64_t>(n, s);
    thrust::gather(ctx.policy(s), kept.data(), kept.data() + n, c.data(), compact.data());
    c = std::move(compact);
  }
  auto order = sorted_order(ctx, columns, bits, n, s);
  columns.clear();
  // rows of the raw columns in sorted order
  auto rows_sorted = ctx.template alloc<uint32_t>(n, s);
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, kept.data(), rows_sorted.data());
  auto start = ctx.template alloc<int64_t>(n, s);
  auto end = ctx.template alloc<int64_t>(n, s);
  auto group = ctx.template alloc<uint32_t>(n, s);
  thrust::gather(ctx.policy(s), rows_sorted.data(), rows_sorted.data() + n, raw.start,
                 start.data());
  thrust::gather(ctx.policy(s), rows_sorted.data(), rows_sorted.data() + n, raw.end, end.data());
  thrust::gather(ctx.policy(s), rows_sorted.data(), rows_sorted.data() + n, raw.group,
                 group.data());

  // Running max of ends within each group, then segment flags and compaction.
  auto run_max = ctx.template alloc<int64_t>(n, s);
  thrust::inclusive_scan_by_key(ctx.policy(s), group.data(), group.data() + n, end.data(),
                                run_max.data(), thrust::equal_to<uint32_t>{}, max_i64_fn{});
  auto flag = ctx.template alloc<uint8_t>(n, s);
  ctx.mark_segment_starts(segment_start_fn{group.data(), start.data(), run_max.data()}, flag.data(),
                          n, s);
  // The first row of each segment: one selection, whose count the host waits for; the
  // segments' columns are then gathered from those rows without further waits.
  auto first = ctx.template alloc<uint32_t>(n, s);
  auto const first_end =
      thrust::copy_if(ctx.policy(s), thrust::counting_iterator<uint32_t>(0),
                      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(n)), flag.data(),
                      first.data(), is_set_fn{});
  ctx.sync_point(s);
  std::size_t const segments = static_cast<std::size_t>(first_end - first.data());
  flag = {};
  out.group = ctx.template alloc<uint32_t>(segments, s);
  out.start = ctx.template alloc<int64_t>(segments, s);
  out.end = ctx.template alloc<int64_t>(segments, s);
  out.size = segments;
  thrust::gather(ctx.policy(s), first.data(), first.data() + segments, group.data(),
                 out.group.data());
  thrust::gather(ctx.policy(s), first.data(), first.data() + segments, start.data(),
                 out.start.data());
  thrust::transform(ctx.policy(s), thrust::counting_iterator<std::size_t>(0),
                    thrust::counting_iterator<std::size_t>(segments), out.end.data(),
                    segment_end_fn{first.data(), run_max.data(), segments, n});
  return out;
}

/// Per-group union of intervals resident on the device; the result comes back to the host.
/// Starts the three downloads of a union on the device into `out` (sized here): its columns
/// are there after the next ctx.synchronize(s).
template <class Context>
void download_union_async(Context& ctx, typename Context::stream_type s,
                          resident_intervals<Context> const& u, interval_union& out) {
  out.group.resize(u.size);
  out.start.resize(u.size);
  out.end.resize(u.size);
  ctx.download_async(out.group.data(), u.group.data(), u.size, s);
  ctx.download_async(out.start.data(), u.start.data(), u.size, s);
  ctx.download_async(out.end.data(), u.end.data(), u.size, s);
}

template <class Context>
interval_union union_resident(Context& ctx, device_intervals raw, typename Context::stream_type s) {
  auto const u = union_device(ctx, raw, s);
  interval_union out;
  if (u.size == 0) return out;
  download_union_async(ctx, s, u, out);
  ctx.synchronize(s);
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
uploaded_intervals<Context> upload_intervals(Context& ctx, interval_view in,
                                             typename Context::stream_type s) {
  std::size_t const rows = in.size();
  uploaded_intervals<Context> d{ctx.template alloc<int64_t>(rows, s),
                                ctx.template alloc<int64_t>(rows, s),
                                ctx.template alloc<uint32_t>(rows, s), rows};
  ctx.upload(d.start.data(), in.start.data(), rows, s);
  ctx.upload(d.end.data(), in.end.data(), rows, s);
  ctx.upload(d.group.data(), in.group.data(), rows, s);
  return d;
}

/// Per-group union of host intervals: one upload of the columns, then union_resident.
template <class Context>
interval_union union_on_device(Context& ctx, interval_view in, typename Context::stream_type s) {
  if (in.size() == 0) return {};
  auto const d = upload_intervals(ctx, in, s);
  return union_resident(ctx, d.view(), s);
}

/// Orders gaps by (group, duration desc, start) and keeps the first `top_per_group` of each
/// group (0 = all), on the device: the device twin of select_top_gaps.
template <class Context>
resident_intervals<Context> top_gaps_device(Context& ctx, typename Context::stream_type s,
                                            resident_intervals<Context> const& in,
                                            std::size_t top_per_group) {
  std::size_t const n = in.size;
  resident_intervals<Context> out;
  if (n == 0) return out;
  auto g_len = ctx.template alloc<int64_t>(n, s);
  thrust::transform(ctx.policy(s), in.end.data(), in.end.data() + n, in.start.data(), g_len.data(),
                    difference_fn{});
  auto const ranges = value_ranges(ctx, s, n, in.group.data(), g_len.data(), in.start.data());
  auto const group_range = ranges.r[0];
  auto const len_range = ranges.r[1];
  auto const from_range = ranges.r[2];
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  for (int c = 0; c < 3; ++c) columns.push_back(ctx.template alloc<uint64_t>(n, s));
  thrust::transform(ctx.policy(s), in.group.data(), in.group.data() + n, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(group_range.lo)});
  thrust::transform(ctx.policy(s), g_len.data(), g_len.data() + n, columns[1].data(),
                    descending_i64_fn{len_range.hi});
  thrust::transform(ctx.policy(s), in.start.data(), in.start.data() + n, columns[2].data(),
                    normalise_i64_fn{from_range.lo});
  int const bits[3] = {bits_for(static_cast<uint64_t>(group_range.hi - group_range.lo)),
                       bits_for(normalise(len_range.hi, len_range.lo)),
                       bits_for(normalise(from_range.hi, from_range.lo))};
  g_len = {};
  auto order = sorted_order(ctx, columns, bits, n, s);
  columns.clear();
  out.group = ctx.template alloc<uint32_t>(n, s);
  out.start = ctx.template alloc<int64_t>(n, s);
  out.end = ctx.template alloc<int64_t>(n, s);
  out.size = n;
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, in.group.data(), out.group.data());
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, in.start.data(), out.start.data());
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, in.end.data(), out.end.data());
  if (top_per_group == 0) return out;
  // rank within group = exclusive count of equal groups before; keep rank < top.
  auto rank = ctx.template alloc<uint64_t>(n, s);
  thrust::exclusive_scan_by_key(ctx.policy(s), out.group.data(), out.group.data() + n,
                                thrust::constant_iterator<uint64_t>(1), rank.data(), uint64_t{0});
  // The rows kept: one selection, whose count the host waits for; then gathers.
  auto rows = ctx.template alloc<uint32_t>(n, s);
  auto const rows_end =
      thrust::copy_if(ctx.policy(s), thrust::counting_iterator<uint32_t>(0),
                      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(n)), rank.data(),
                      rows.data(), below_fn{top_per_group});
  ctx.sync_point(s);
  rank = {};
  resident_intervals<Context> kept;
  kept.size = static_cast<std::size_t>(rows_end - rows.data());
  kept.group = ctx.template alloc<uint32_t>(kept.size, s);
  kept.start = ctx.template alloc<int64_t>(kept.size, s);
  kept.end = ctx.template alloc<int64_t>(kept.size, s);
  thrust::gather(ctx.policy(s), rows.data(), rows.data() + kept.size, out.group.data(),
                 kept.group.data());
  thrust::gather(ctx.policy(s), rows.data(), rows.data() + kept.size, out.start.data(),
                 kept.start.data());
  thrust::gather(ctx.policy(s), rows.data(), rows.data() + kept.size, out.end.data(),
                 kept.end.data());
  return kept;
}

/// The holes before the members of a union on the device that `before` keeps, as gap rows.
template <class Context>
resident_intervals<Context> holes_before_device(Context& ctx, typename Context::stream_type s,
                                                gap_before_fn const& before, std::size_t rows) {
  resident_intervals<Context> out;
  auto rows_kept = ctx.template alloc<uint32_t>(rows, s);
  auto const kept_end = thrust::copy_if(
      ctx.policy(s), thrust::counting_iterator<uint32_t>(0),
      thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(rows)), rows_kept.data(), before);
  ctx.sync_point(s);
  std::size_t const n = static_cast<std::size_t>(kept_end - rows_kept.data());
  if (n == 0) return out;
  out.start = ctx.template alloc<int64_t>(n, s);
  out.end = ctx.template alloc<int64_t>(n, s);
  out.group = ctx.template alloc<uint32_t>(n, s);
  out.size = n;
  thrust::transform(ctx.policy(s), rows_kept.data(), rows_kept.data() + n, out.start.data(),
                    gap_from_fn{before});
  thrust::transform(ctx.policy(s), rows_kept.data(), rows_kept.data() + n, out.end.data(),
                    gap_to_fn{before});
  thrust::gather(ctx.policy(s), rows_kept.data(), rows_kept.data() + n, before.group,
                 out.group.data());
  return out;
}

/// Holes before the members [first, rows) of a slice of a union (rows before `first` give the
/// previous end), at least `min_gap` long, ordered by (group, duration desc, start), the first
/// `top_per_group` of each group kept (0 = all).
template <class Context>
std::vector<gap> gaps_on_device(Context& ctx, typename Context::stream_type s, interval_view u,
                                std::size_t first, group_windows windows, std::int64_t min_gap,
                                std::size_t top_per_group) {
  std::size_t const rows = u.size();
  std::size_t const groups = windows.start.size();
  std::vector<gap> out;
  if (rows <= first || groups == 0) return out;
  auto const d = upload_intervals(ctx, u, s);
  auto ws = ctx.template alloc<int64_t>(groups, s);
  auto we = ctx.template alloc<int64_t>(groups, s);
  ctx.upload(ws.data(), windows.start.data(), groups, s);
  ctx.upload(we.data(), windows.end.data(), groups, s);

  gap_before_fn const before{d.group.data(), d.start.data(),
                             d.end.data(),   ws.data(),
                             we.data(),      groups,
                             first,          static_cast<uint64_t>(min_gap > 1 ? min_gap : 1)};
  auto const top =
      top_gaps_device(ctx, s, holes_before_device(ctx, s, before, rows), top_per_group);
  std::size_t const m = top.size;
  std::vector<std::uint32_t> h_group(m);
  std::vector<std::int64_t> h_from(m), h_to(m);
  ctx.download(h_group.data(), top.group.data(), m, s);
  ctx.download(h_from.data(), top.start.data(), m, s);
  ctx.download(h_to.data(), top.end.data(), m, s);
  out.resize(m);
  for (std::size_t i = 0; i < m; ++i) out[i] = {h_group[i], h_from[i], h_to[i]};
  return out;
}

/// Values sorted by (key, value) and the moments of each distinct key, on the device.
template <class Context>
struct sorted_moments {
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) values;  ///< sorted values
  decltype(std::declval<Context&>().template alloc<uint32_t>(0)) keys;   ///< distinct keys
  decltype(std::declval<Context&>().template alloc<moments>(0)) moments_;
  std::size_t groups = 0;
};

template <class Context>
sorted_moments<Context> sorted_moments_device(Context& ctx, typename Context::stream_type s,
                                              uint32_t const* keys, int64_t const* values,
                                              std::size_t n) {
  sorted_moments<Context> out;
  if (n == 0) return out;
  auto const ranges = value_ranges(ctx, s, n, keys, values, values);
  auto const key_range = ranges.r[0];
  auto const value_range_ = ranges.r[1];
  std::vector<decltype(ctx.template alloc<uint64_t>(0))> columns;
  columns.push_back(ctx.template alloc<uint64_t>(n, s));
  columns.push_back(ctx.template alloc<uint64_t>(n, s));
  thrust::transform(ctx.policy(s), keys, keys + n, columns[0].data(),
                    normalise_u32_fn{static_cast<uint32_t>(key_range.lo)});
  thrust::transform(ctx.policy(s), values, values + n, columns[1].data(),
                    normalise_i64_fn{value_range_.lo});
  int const bits[2] = {bits_for(static_cast<uint64_t>(key_range.hi - key_range.lo)),
                       bits_for(normalise(value_range_.hi, value_range_.lo))};
  auto order = sorted_order(ctx, columns, bits, n, s);
  columns.clear();
  auto s_keys = ctx.template alloc<uint32_t>(n, s);
  out.values = ctx.template alloc<int64_t>(n, s);
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, keys, s_keys.data());
  thrust::gather(ctx.policy(s), order.data(), order.data() + n, values, out.values.data());
  order = {};

  out.keys = ctx.template alloc<uint32_t>(n, s);
  out.moments_ = ctx.template alloc<moments>(n, s);
  auto const ends = thrust::reduce_by_key(
      ctx.policy(s), s_keys.data(), s_keys.data() + n,
      thrust::make_transform_iterator(out.values.data(), to_moments_fn{}), out.keys.data(),
      out.moments_.data(), thrust::equal_to<uint32_t>{}, moments_plus_fn{});
  ctx.sync_point(s);
  out.groups = static_cast<std::size_t>(ends.first - out.keys.data());
  return out;
}

/// The exact parts of one key read from its moments (all but the order statistics); throws
/// std::overflow_error when Σx² overflowed.
inline exact_stats exact_from_moments(std::uint32_t key, moments const& m) {
  if (m.overflow) throw_sum_sq_overflow(key);
  exact_stats s;
  s.key = key;
  s.count = m.count;
  s.sum = static_cast<int128>((static_cast<uint128>(m.sum.hi) << 64) | m.sum.lo);
  s.sum_sq = (static_cast<uint128>(m.sum_sq.hi) << 64) | m.sum_sq.lo;
  return s;
}

/// Exact statistics per distinct key of columns resident on the device, ordered by key.
template <class Context>
std::vector<exact_stats> stats_resident(Context& ctx, typename Context::stream_type s,
                                        uint32_t const* keys, int64_t const* values, std::size_t n,
                                        std::span<double const> quantiles) {
  std::vector<exact_stats> out;
  if (n == 0) return out;
  auto const sorted = sorted_moments_device(ctx, s, keys, values, n);
  std::size_t const groups = sorted.groups;
  std::vector<std::uint32_t> h_ukeys(groups);
  std::vector<moments> h_moments(groups);
  ctx.download(h_ukeys.data(), sorted.keys.data(), groups, s);
  ctx.download(h_moments.data(), sorted.moments_.data(), groups, s);

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
  auto d_ranks = ctx.template alloc<uint64_t>(ranks.size(), s);
  auto d_picked = ctx.template alloc<int64_t>(ranks.size(), s);
  ctx.upload(d_ranks.data(), ranks.data(), ranks.size(), s);
  thrust::gather(ctx.policy(s), d_ranks.data(), d_ranks.data() + ranks.size(), sorted.values.data(),
                 d_picked.data());
  std::vector<std::int64_t> picked(ranks.size());
  ctx.download(picked.data(), d_picked.data(), picked.size(), s);

  out.resize(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    exact_stats& s = out[g];
    std::int64_t const* p = picked.data() + g * per_group;
    s = exact_from_moments(h_ukeys[g], h_moments[g]);
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
std::vector<exact_stats> stats_on_device(Context& ctx, typename Context::stream_type s,
                                         std::span<std::uint32_t const> h_keys,
                                         std::span<std::int64_t const> h_values,
                                         std::span<double const> quantiles) {
  std::size_t const n = h_keys.size();
  if (n == 0) return {};
  auto keys = ctx.template alloc<uint32_t>(n, s);
  auto values = ctx.template alloc<int64_t>(n, s);
  ctx.upload(keys.data(), h_keys.data(), n, s);
  ctx.upload(values.data(), h_values.data(), n, s);
  return stats_resident(ctx, s, keys.data(), values.data(), n, quantiles);
}

/// Per-group sums on the device: `size` distinct groups, ascending.
template <class Context>
struct group_sums {
  decltype(std::declval<Context&>().template alloc<uint32_t>(0)) group;
  decltype(std::declval<Context&>().template alloc<int64_t>(0)) sum;
  std::size_t size = 0;
};

/// Σ |a_i ∩ b| per group of the members of a, on the device; b covers every member a can
/// overlap. Both sorted by (group, start).
template <class Context>
group_sums<Context> overlap_by_group_device(Context& ctx, typename Context::stream_type s,
                                            device_intervals a, device_intervals b) {
  std::size_t const na = a.size, nb = b.size;
  group_sums<Context> out;
  if (na == 0 || nb == 0) return out;
  auto cum = ctx.template alloc<int64_t>(nb, s);
  auto len = ctx.template alloc<int64_t>(nb, s);
  thrust::transform(ctx.policy(s), b.start, b.start + nb, b.end, len.data(), length_fn{});
  thrust::exclusive_scan(ctx.policy(s), len.data(), len.data() + nb, cum.data(), int64_t{0});
  len = {};
  coverage_fn const cover{b.group, b.start, b.end, cum.data(), nb};
  auto overlap = ctx.template alloc<int64_t>(na, s);
  thrust::transform(ctx.policy(s), thrust::counting_iterator<std::size_t>(0),
                    thrust::counting_iterator<std::size_t>(na), overlap.data(),
                    overlap_fn{cover, a.group, a.start, a.end});
  out.group = ctx.template alloc<uint32_t>(na, s);
  out.sum = ctx.template alloc<int64_t>(na, s);
  auto const ends = thrust::reduce_by_key(ctx.policy(s), a.group, a.group + na, overlap.data(),
                                          out.group.data(), out.sum.data());
  ctx.sync_point(s);
  out.size = static_cast<std::size_t>(ends.first - out.group.data());
  return out;
}

/// Σ |a_i ∩ b| per group of the members of slice a, added into `per_group`; b is a slice of a
/// union that covers every member a can overlap.
template <class Context>
void intersection_on_device(Context& ctx, typename Context::stream_type s, interval_view a,
                            interval_view b, std::vector<std::int64_t>& per_group) {
  if (a.size() == 0 || b.size() == 0) return;
  auto const da = upload_intervals(ctx, a, s);
  auto const db = upload_intervals(ctx, b, s);
  auto const sums = overlap_by_group_device(ctx, s, da.view(), db.view());
  std::size_t const groups = sums.size;
  std::vector<std::uint32_t> h_group(groups);
  std::vector<std::int64_t> h_sum(groups);
  ctx.download(h_group.data(), sums.group.data(), groups, s);
  ctx.download(h_sum.data(), sums.sum.data(), groups, s);
  for (std::size_t i = 0; i < groups; ++i)
    if (h_group[i] < per_group.size()) per_group[h_group[i]] += h_sum[i];
}

}  // namespace tracesweep::cuda_detail
