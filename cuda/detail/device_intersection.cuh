// SPDX-License-Identifier: Apache-2.0
// Interval intersection on the device: Σ |a_i ∩ b| per group of two unions sorted by (group,
// start).
#pragma once

#include "cuda/detail/device_union.cuh"

namespace tracesweep::cuda_detail {

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
