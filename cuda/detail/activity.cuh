// SPDX-License-Identifier: Apache-2.0
// backend::device_activity on the device: the request's columns go up once (column.hpp), every
// step runs on device columns, and three result tables come back — the per-device numbers, the
// gaps and the per-name kernel statistics — and, with keep_unions, the activity, kernel,
// communication and computation unions. Compiled by nvcc with the CUDA context and by g++ with the
// host twin, like primitives.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_kind.hpp>

#include "cuda/detail/activity_functors.cuh"
#include "cuda/detail/column.hpp"
#include "cuda/detail/held_columns.hpp"
#include "cuda/detail/primitives.cuh"

namespace tracesweep::cuda_detail {

// ---- planning ----------------------------------------------------------------------------

/// Upper bound of the device bytes activity_on_device holds at once for `rows` table rows,
/// `flags` communication flags and `devices` devices: the six columns (25 bytes a row), the
/// selected rows and their unions, and the largest step's working set (a union, a gap scan or
/// the statistics sort, each below 200 bytes a row), with margin for the radix sort's
/// temporary storage.
[[nodiscard]] constexpr std::size_t resident_activity_bytes(std::size_t rows, std::size_t flags,
                                                            std::size_t devices) noexcept {
  return rows * 384 + flags + devices * 256 + (std::size_t{64} << 10);
}

// ---- the pipeline --------------------------------------------------------------------------

/// Sums of a device table's groups scattered into its column (`where` maps group → position).
template <class Context, class Where>
void scatter_sums(Context& ctx, typename Context::stream_type s, group_sums<Context> const& sums,
                  int64_t* table, Where where) {
  if (sums.size == 0) return;
  thrust::scatter(ctx.policy(s), sums.sum.data(), sums.sum.data() + sums.size,
                  thrust::make_transform_iterator(sums.group.data(), where), table);
}

/// Total length per group of a union on the device.
template <class Context>
group_sums<Context> lengths_by_group_device(Context& ctx, typename Context::stream_type s,
                                            resident_intervals<Context> const& u) {
  group_sums<Context> out;
  if (u.size == 0) return out;
  out.group = ctx.template alloc<uint32_t>(u.size, s);
  out.sum = ctx.template alloc<int64_t>(u.size, s);
  auto const len = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0),
                                                   member_length_fn{u.start.data(), u.end.data()});
  auto const ends = thrust::reduce_by_key(ctx.policy(s), u.group.data(), u.group.data() + u.size,
                                          len, out.group.data(), out.sum.data());
  ctx.sync_point(s);
  out.size = static_cast<std::size_t>(ends.first - out.group.data());
  return out;
}

/// The rows of `rows` that `keep` selects.
template <class Context, class Pred>
auto select_rows(Context& ctx, typename Context::stream_type s, uint32_t const* rows, std::size_t n,
                 Pred keep) {
  auto out = ctx.template alloc<uint32_t>(n, s);
  auto const e = thrust::copy_if(ctx.policy(s), rows, rows + n, out.data(), keep);
  ctx.sync_point(s);
  return std::pair{std::move(out), static_cast<std::size_t>(e - out.data())};
}

/// Union per group of the selected rows of start/end, `group` giving each selected row's group.
template <class Context, class GroupOf>
resident_intervals<Context> union_of_rows(Context& ctx, typename Context::stream_type s,
                                          column_view<int64_t> start, column_view<int64_t> end,
                                          uint32_t const* rows, std::size_t n, GroupOf group_of) {
  if (n == 0) return {};
  auto r_start = ctx.template alloc<int64_t>(n, s);
  auto r_end = ctx.template alloc<int64_t>(n, s);
  auto r_group = ctx.template alloc<uint32_t>(n, s);
  thrust::gather(ctx.policy(s), rows, rows + n, start.data, r_start.data());
  thrust::gather(ctx.policy(s), rows, rows + n, end.data, r_end.data());
  thrust::transform(ctx.policy(s), rows, rows + n, r_group.data(), group_of);
  return union_device(ctx, {r_start.data(), r_end.data(), r_group.data(), n}, s);
}

struct gather_u32_fn {
  uint32_t const* v;
  TRACESWEEP_HOST_DEVICE uint32_t operator()(uint32_t row) const { return v[row]; }
};

/// The columns device_activity reads (held copies, or one upload each), and the rows it
/// selects from them.
template <class Context>
struct activity_inputs {
  input_column<int64_t, Context> start, end;
  input_column<uint8_t, Context> kind;
  input_column<uint32_t, Context> group, name;
  input_column<uint8_t, Context> flag;
  typename Context::template buffer<uint32_t> activity_rows, kernel_rows;
  std::size_t activity_count = 0, kernel_count = 0;
};

template <class Context>
activity_inputs<Context> upload_activity_inputs(Context& ctx, typename Context::stream_type s,
                                                activity_request const& r,
                                                held_columns<Context>* held) {
  activity_inputs<Context> in;
  in.start = read_column(ctx, held, r.start, s);
  in.end = read_column(ctx, held, r.end, s);
  in.kind = read_column(ctx, held,
                        std::span<std::uint8_t const>(
                            reinterpret_cast<std::uint8_t const*>(r.kind.data()), r.kind.size()),
                        s);
  in.group = read_column(ctx, held, r.device_group, s);
  in.name = read_column(ctx, held, r.name, s);
  in.flag = read_column(ctx, held, r.communication, s);
  // Row selection: device activity, and the kernels among it.
  std::size_t const n = r.start.size();
  auto all = ctx.template alloc<uint32_t>(n, s);
  thrust::sequence(ctx.policy(s), all.data(), all.data() + n);
  std::tie(in.activity_rows, in.activity_count) =
      select_rows(ctx, s, all.data(), n, kind_at_most_fn{in.kind.data(), 2});
  std::tie(in.kernel_rows, in.kernel_count) = select_rows(
      ctx, s, in.activity_rows.data(), in.activity_count, kind_at_most_fn{in.kind.data(), 0});
  return in;
}

/// The per-device table: empty windows, zeros.
template <class Context>
column<int64_t, Context> empty_activity_table(Context& ctx, typename Context::stream_type s,
                                              std::size_t devices) {
  column<int64_t, Context> table(ctx, devices * activity_columns, s);
  int64_t* const t = table.data();
  auto const policy = ctx.policy(s);
  thrust::fill(policy, t, t + devices, std::numeric_limits<int64_t>::max());
  thrust::fill(policy, t + devices, t + 2 * devices, std::numeric_limits<int64_t>::min());
  thrust::fill(policy, t + 2 * devices, t + activity_columns * devices, int64_t{0});
  return table;
}

/// Column `c` of the per-device table, as a group → position map.
inline table_index_fn table_column(int c, std::size_t devices) {
  return table_index_fn{static_cast<std::size_t>(c) * devices};
}

/// Windows and kernel counts: activity rows by device (one radix pass), reduced per device.
template <class Context>
void add_windows(Context& ctx, typename Context::stream_type s, activity_inputs<Context> const& in,
                 std::size_t devices, int64_t* t) {
  std::size_t const m = in.activity_count;
  if (m == 0) return;
  auto const policy = ctx.policy(s);
  auto by_device = ctx.template alloc<uint64_t>(m, s);
  auto order = ctx.template alloc<uint32_t>(m, s);
  thrust::gather(policy, in.activity_rows.data(), in.activity_rows.data() + m, in.group.data(),
                 by_device.data());
  thrust::copy(policy, in.activity_rows.data(), in.activity_rows.data() + m, order.data());
  ctx.sort_pairs(by_device, order, std::max(1, bits_for(devices)), s);
  by_device = {};
  auto keys = ctx.template alloc<uint32_t>(m, s);
  auto acc = ctx.template alloc<window_acc>(m, s);
  auto const sorted_group =
      thrust::make_transform_iterator(order.data(), gather_u32_fn{in.group.data()});
  auto const ends = thrust::reduce_by_key(
      policy, sorted_group, sorted_group + m,
      thrust::make_transform_iterator(order.data(),
                                      to_window_fn{in.start.data(), in.end.data(), in.kind.data()}),
      keys.data(), acc.data(), thrust::equal_to<uint32_t>{}, window_merge_fn{});
  ctx.sync_point(s);
  std::size_t const present = static_cast<std::size_t>(ends.first - keys.data());
  int const fields[3] = {col_window_start, col_window_end, col_kernel_count};
  for (int f = 0; f < 3; ++f)
    thrust::scatter(policy, thrust::make_transform_iterator(acc.data(), window_field_fn{f}),
                    thrust::make_transform_iterator(acc.data() + present, window_field_fn{f}),
                    thrust::make_transform_iterator(keys.data(), table_column(fields[f], devices)),
                    t);
}

/// The unions of communication and computation kernels (kept for the result with keep_unions).
template <class Context>
struct kernel_class_unions {
  resident_intervals<Context> communication, computation;
};

/// Communication and computation kernels: their unions, their busy time and the overlap of the
/// two in the table.
template <class Context>
kernel_class_unions<Context> add_kernel_classes(Context& ctx, typename Context::stream_type s,
                                                activity_inputs<Context> const& in,
                                                std::size_t devices, int64_t* t) {
  auto const union_of_class = [&](bool communication) {
    auto const [rows, count] = select_rows(
        ctx, s, in.kernel_rows.data(), in.kernel_count,
        communication_fn{in.name.data(), in.flag.data(), in.flag.size(), communication});
    return union_of_rows(ctx, s, in.start.view(), in.end.view(), rows.data(), count,
                         gather_u32_fn{in.group.data()});
  };
  kernel_class_unions<Context> out{union_of_class(true), union_of_class(false)};
  scatter_sums(ctx, s, lengths_by_group_device(ctx, s, out.communication), t,
               table_column(col_communication, devices));
  scatter_sums(ctx, s, lengths_by_group_device(ctx, s, out.computation), t,
               table_column(col_computation, devices));
  scatter_sums(ctx, s,
               overlap_by_group_device(ctx, s, out.communication.view(), out.computation.view()), t,
               table_column(col_overlap, devices));
  return out;
}

/// The trailing hole of each device: its last union member's end to its window's end.
template <class Context>
resident_intervals<Context> trailing_holes(Context& ctx, typename Context::stream_type s,
                                           resident_intervals<Context> const& activity,
                                           int64_t const* t, std::size_t devices,
                                           uint64_t shortest) {
  auto const policy = ctx.policy(s);
  auto last_end = ctx.template alloc<int64_t>(devices, s);
  thrust::fill(policy, last_end.data(), last_end.data() + devices,
               std::numeric_limits<int64_t>::min());
  if (activity.size > 0) {
    auto keys = ctx.template alloc<uint32_t>(activity.size, s);
    auto last = ctx.template alloc<int64_t>(activity.size, s);
    auto const ends = thrust::reduce_by_key(
        policy, activity.group.data(), activity.group.data() + activity.size, activity.end.data(),
        keys.data(), last.data(), thrust::equal_to<uint32_t>{}, max_i64_fn{});
    ctx.sync_point(s);
    thrust::scatter(policy, last.data(), ends.second, keys.data(), last_end.data());
  }
  trailing_gap_fn const trailing{t + col_window_start * devices, t + col_window_end * devices,
                                 last_end.data(), shortest};
  auto ids = ctx.template alloc<uint32_t>(devices, s);
  thrust::sequence(policy, ids.data(), ids.data() + devices);
  auto const [trail, nt] = select_rows(ctx, s, ids.data(), devices, trailing);
  resident_intervals<Context> out;
  out.size = nt;
  out.group = ctx.template alloc<uint32_t>(nt, s);
  out.start = ctx.template alloc<int64_t>(nt, s);
  out.end = ctx.template alloc<int64_t>(nt, s);
  thrust::copy(policy, trail.data(), trail.data() + nt, out.group.data());
  thrust::transform(policy, trail.data(), trail.data() + nt, out.start.data(),
                    trailing_from_fn{trailing});
  thrust::transform(policy, trail.data(), trail.data() + nt, out.end.data(),
                    trailing_to_fn{trailing});
  return out;
}

/// `a` then `b`, in one set of columns.
template <class Context>
resident_intervals<Context> concatenate(Context& ctx, typename Context::stream_type s,
                                        resident_intervals<Context> const& a,
                                        resident_intervals<Context> const& b) {
  auto const policy = ctx.policy(s);
  resident_intervals<Context> out;
  out.size = a.size + b.size;
  out.group = ctx.template alloc<uint32_t>(out.size, s);
  out.start = ctx.template alloc<int64_t>(out.size, s);
  out.end = ctx.template alloc<int64_t>(out.size, s);
  for (auto const* part : {&a, &b}) {
    if (part->size == 0) continue;
    auto const at = part == &a ? 0 : a.size;
    thrust::copy(policy, part->group.data(), part->group.data() + part->size,
                 out.group.data() + at);
    thrust::copy(policy, part->start.data(), part->start.data() + part->size,
                 out.start.data() + at);
    thrust::copy(policy, part->end.data(), part->end.data() + part->size, out.end.data() + at);
  }
  return out;
}

/// Gaps of the activity union inside each device's window: the holes before each member and
/// the trailing hole of each device, then the longest top_per_group of each device.
template <class Context>
column<gap_row, Context> activity_gaps(Context& ctx, typename Context::stream_type s,
                                       resident_intervals<Context> const& activity,
                                       int64_t const* t, std::size_t devices,
                                       activity_request const& r) {
  uint64_t const shortest = static_cast<uint64_t>(r.min_gap > 1 ? r.min_gap : 1);
  gap_before_fn const before{activity.group.data(),
                             activity.start.data(),
                             activity.end.data(),
                             t + col_window_start * devices,
                             t + col_window_end * devices,
                             devices,
                             0,
                             shortest};
  auto const inner = holes_before_device(ctx, s, before, activity.size);
  auto const trailing = trailing_holes(ctx, s, activity, t, devices, shortest);
  auto const top = top_gaps_device(ctx, s, concatenate(ctx, s, inner, trailing), r.top_per_group);
  column<gap_row, Context> gaps(ctx, top.size, s);
  thrust::transform(ctx.policy(s), thrust::counting_iterator<std::size_t>(0),
                    thrust::counting_iterator<std::size_t>(top.size), gaps.data(),
                    gap_row_fn{top.group.data(), top.start.data(), top.end.data()});
  return gaps;
}

/// Kernel durations by name: sorted by (name, duration), moments and order statistics per name.
template <class Context>
column<stats_row, Context> kernel_stats_rows(Context& ctx, typename Context::stream_type s,
                                             activity_inputs<Context> const& in) {
  auto const policy = ctx.policy(s);
  std::size_t const kernels = in.kernel_count;
  auto names = ctx.template alloc<uint32_t>(kernels, s);
  auto durations = ctx.template alloc<int64_t>(kernels, s);
  thrust::gather(policy, in.kernel_rows.data(), in.kernel_rows.data() + kernels, in.name.data(),
                 names.data());
  thrust::transform(policy, in.kernel_rows.data(), in.kernel_rows.data() + kernels,
                    durations.data(), duration_fn{in.start.data(), in.end.data()});
  auto const sorted = sorted_moments_device(ctx, s, names.data(), durations.data(), kernels);
  auto offset = ctx.template alloc<uint64_t>(sorted.groups, s);
  thrust::exclusive_scan(
      policy, thrust::make_transform_iterator(sorted.moments_.data(), moments_count_fn{}),
      thrust::make_transform_iterator(sorted.moments_.data() + sorted.groups, moments_count_fn{}),
      offset.data(), uint64_t{0});
  column<stats_row, Context> stats(ctx, sorted.groups, s);
  thrust::transform(policy, thrust::counting_iterator<std::size_t>(0),
                    thrust::counting_iterator<std::size_t>(sorted.groups), stats.data(),
                    stats_row_fn{sorted.keys.data(), sorted.moments_.data(), offset.data(),
                                 sorted.values.data()});
  return stats;
}

/// The result tables read on the host: the per-device table's rows, the gaps, the statistics.
inline void fill_activity_result(std::vector<int64_t> const& table, std::size_t devices,
                                 std::vector<gap_row> const& gaps,
                                 std::vector<stats_row> const& stats, activity_result& out) {
  out.devices.resize(devices);
  for (std::size_t g = 0; g < devices; ++g) {
    auto const v = [&](int c) { return table[static_cast<std::size_t>(c) * devices + g]; };
    auto& d = out.devices[g];
    d.window_start = v(col_window_start);
    d.window_end = v(col_window_end);
    d.busy = v(col_busy);
    d.kernel_busy = v(col_kernel);
    d.memcpy_busy = v(col_memcpy);
    d.memset_busy = v(col_memset);
    d.communication = v(col_communication);
    d.computation = v(col_computation);
    d.overlap = v(col_overlap);
    d.kernel_count = v(col_kernel_count);
  }
  out.gaps.reserve(gaps.size());
  for (auto const& g : gaps) out.gaps.push_back({g.group, g.start, g.end});
  out.kernels.reserve(stats.size());
  for (auto const& row : stats) {
    exact_stats e = exact_from_moments(row.key, row.m);
    e.min = row.min;
    e.max = row.max;
    e.median_lo = row.median_lo;
    e.median_hi = row.median_hi;
    out.kernels.push_back(std::move(e));
  }
}

/// device_activity on the device, every step ordered on `s`. `r` must be valid (the public
/// backend call checks it) and hold fewer than 2^32 rows. Columns `held` holds are read from
/// their device copies (null: every column is uploaded).
template <class Context>
activity_result activity_on_device(Context& ctx, typename Context::stream_type s,
                                   activity_request const& r,
                                   held_columns<Context>* held = nullptr) {
  std::size_t const devices = r.device_count;
  auto const in = upload_activity_inputs(ctx, s, r, held);
  auto table = empty_activity_table(ctx, s, devices);
  int64_t* const t = table.data();
  add_windows(ctx, s, in, devices, t);

  // Unions: activity per device, per device × kind; busy time of each.
  auto const activity =
      union_of_rows(ctx, s, in.start.view(), in.end.view(), in.activity_rows.data(),
                    in.activity_count, gather_u32_fn{in.group.data()});
  scatter_sums(ctx, s, lengths_by_group_device(ctx, s, activity), t,
               table_column(col_busy, devices));
  {
    auto const by_kind =
        union_of_rows(ctx, s, in.start.view(), in.end.view(), in.activity_rows.data(),
                      in.activity_count, device_kind_fn{in.kind.data(), in.group.data()});
    scatter_sums(ctx, s, lengths_by_group_device(ctx, s, by_kind), t, kind_table_index_fn{devices});
  }
  auto kernel_classes = add_kernel_classes(ctx, s, in, devices, t);
  if (!r.keep_unions) kernel_classes = {};
  auto const gaps = activity_gaps(ctx, s, activity, t, devices, r);
  auto const stats = kernel_stats_rows(ctx, s, in);

  // The result tables: three downloads (and the three unions with keep_unions), one
  // synchronisation.
  activity_result out;
  if (r.keep_unions) {
    download_union_async(ctx, s, activity, out.activity_union);
    download_union_async(ctx, s, kernel_classes.communication, out.communication_union);
    download_union_async(ctx, s, kernel_classes.computation, out.computation_union);
  }
  std::vector<int64_t> h_table(table.size());
  std::vector<gap_row> h_gaps(gaps.size());
  std::vector<stats_row> h_stats(stats.size());
  ctx.download_async(h_table.data(), table.data(), h_table.size(), s);
  ctx.download_async(h_gaps.data(), gaps.data(), h_gaps.size(), s);
  ctx.download_async(h_stats.data(), stats.data(), h_stats.size(), s);
  ctx.synchronize(s);
  // Kernels = communication ∪ computation (disjoint classes): one linear merge on the host.
  if (r.keep_unions)
    out.kernel_union = merge_unions(out.communication_union, out.computation_union);
  out.computation_union_kept = r.keep_unions;
  fill_activity_result(h_table, devices, h_gaps, h_stats, out);
  return out;
}

}  // namespace tracesweep::cuda_detail
