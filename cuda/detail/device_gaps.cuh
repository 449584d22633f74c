// SPDX-License-Identifier: Apache-2.0
// Gap scan on the device: the holes before the members of a union inside each group's window,
// ordered by (group, duration desc, start), the longest per group kept.
#pragma once

#include "cuda/detail/device_union.cuh"

namespace tracesweep::cuda_detail {

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

}  // namespace tracesweep::cuda_detail
