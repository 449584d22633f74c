// SPDX-License-Identifier: Apache-2.0
// Per-group interval union on the device: resident, downloaded asynchronously, or from host
// intervals uploaded once.
#pragma once

#include "cuda/detail/column.hpp"
#include "cuda/detail/device_sort.cuh"

namespace tracesweep::cuda_detail {

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

/// Per-group union of the rows `rows` of start and end columns already on the device (each
/// taken row's group in `group`): the rows and groups go up, the intervals are gathered on the
/// device.
template <class Context>
interval_union union_of_device_rows(Context& ctx, typename Context::stream_type s,
                                    column_view<int64_t> start, column_view<int64_t> end,
                                    std::span<std::size_t const> rows,
                                    std::span<uint32_t const> group) {
  std::size_t const n = rows.size();
  if (n == 0) return {};
  auto d_group = upload_column(ctx, group, s);
  auto d_start = ctx.template alloc<int64_t>(n, s);
  auto d_end = ctx.template alloc<int64_t>(n, s);
  {
    auto const d_rows = upload_column(ctx, rows, s);
    thrust::gather(ctx.policy(s), d_rows.data(), d_rows.data() + n, start.data, d_start.data());
    thrust::gather(ctx.policy(s), d_rows.data(), d_rows.data() + n, end.data, d_end.data());
  }
  return union_resident(ctx, {d_start.data(), d_end.data(), d_group.data(), n}, s);
}

}  // namespace tracesweep::cuda_detail
