// SPDX-License-Identifier: Apache-2.0
// Segmented exact statistics on the device: values sorted by (key, value), moments per key, the
// order statistics read from the sorted values.
#pragma once

#include "cuda/detail/column.hpp"
#include "cuda/detail/device_sort.cuh"

namespace tracesweep::cuda_detail {

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

/// Exact statistics per distinct key of the durations of rows `rows` of start and end columns
/// already on the device (`rows` empty: every row in order, one key each): the rows and keys go
/// up, the durations are computed on the device.
template <class Context>
std::vector<exact_stats> duration_stats_on_device(Context& ctx, typename Context::stream_type s,
                                                  column_view<int64_t> start,
                                                  column_view<int64_t> end,
                                                  std::span<std::size_t const> rows,
                                                  std::span<std::uint32_t const> h_keys,
                                                  std::span<double const> quantiles) {
  std::size_t const n = h_keys.size();
  if (n == 0) return {};
  auto const keys = upload_column(ctx, h_keys, s);
  auto values = ctx.template alloc<int64_t>(n, s);
  auto const fill = [&](std::size_t const* d_rows) {
    thrust::transform(ctx.policy(s), thrust::counting_iterator<std::size_t>(0),
                      thrust::counting_iterator<std::size_t>(n), values.data(),
                      row_duration_fn{start.data, end.data, d_rows});
  };
  if (rows.empty()) {
    fill(nullptr);
  } else {
    auto const d_rows = upload_column(ctx, rows, s);
    fill(d_rows.data());
  }
  return stats_resident(ctx, s, keys.data(), values.data(), n, quantiles);
}

}  // namespace tracesweep::cuda_detail
