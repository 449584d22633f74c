// SPDX-License-Identifier: Apache-2.0
// Building blocks of the device algorithms: the value ranges of key columns (one reduction) and
// the stable lexicographic order of rows by normalised key columns (radix sort passes).
#pragma once

#include "cuda/detail/device_functors.cuh"

namespace tracesweep::cuda_detail {

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

}  // namespace tracesweep::cuda_detail
