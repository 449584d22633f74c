// SPDX-License-Identifier: Apache-2.0
// Union per group: drop empty intervals, sort by (group, start) with the radix sort (a packed
// 64-bit key when group and start range fit, else two stable passes), then the host sweep
// (union_builder) in contiguous chunks that are stitched afterwards.
#include <algorithm>
#include <bit>
#include <limits>
#include <tuple>
#include <vector>

#include "parallel.hpp"
#include "primitives.hpp"
#include "radix_sort.hpp"

namespace tracesweep::cpu {
namespace {

/// Sweep of items [begin, end) in (group, start) order; `get(i)` yields (group, start, end).
template <typename Get>
interval_union sweep_range(Get const& get, std::size_t begin, std::size_t end) {
  // At most one member per item. Reserving that bound up front costs only address space (pages
  // are touched as members are written) and avoids the regrowth copies, which dominated when
  // nearly every interval is its own member.
  union_builder out(end - begin);
  out.add_all(get, begin, end);
  return out.finish();
}

/// Runs the sweep on `threads` chunks and joins the chunk results: a chunk's leading members
/// that overlap or touch the previous chunk's last member of the same group merge into it.
template <typename Get>
interval_union sweep(Get const& get, std::size_t n, unsigned threads) {
  unsigned const workers = useful_threads(threads, n, 1 << 18);
  std::vector<interval_union> parts(workers);
  fork_join(workers, [&](unsigned w) {
    auto const [b, e] = chunk_range(n, workers, w);
    parts[w] = sweep_range(get, b, e);
  });
  if (workers == 1) return std::move(parts[0]);
  std::size_t total = 0;
  for (auto const& part : parts) total += part.size();
  union_builder out(total);
  for (auto const& part : parts) out.append(part);
  return out.finish();
}

}  // namespace

interval_union union_of_sorted(sorted_intervals sorted, unsigned threads) {
  auto get = [&sorted](std::size_t i) {
    return std::tuple{sorted.group[i], sorted.start[i], sorted.end[i]};
  };
  return sweep(get, sorted.start.size(), std::max(1u, threads));
}

interval_union union_by_group(interval_view iv, unsigned threads) {
  threads = std::max(1u, threads);
  std::size_t const n = iv.size();

  std::size_t m = 0;
  std::int64_t smin = std::numeric_limits<std::int64_t>::max();
  std::int64_t smax = std::numeric_limits<std::int64_t>::min();
  group_id gmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (iv.end[i] <= iv.start[i]) continue;
    ++m;
    smin = std::min(smin, iv.start[i]);
    smax = std::max(smax, iv.start[i]);
    gmax = std::max(gmax, iv.group[i]);
  }
  if (m == 0) return {};

  auto const base = static_cast<std::uint64_t>(smin);
  int const rbits = std::bit_width(static_cast<std::uint64_t>(smax) - base);
  int const gbits = std::bit_width(std::uint64_t{gmax});

  if (rbits + gbits <= 64) {
    // Packed key (group << rbits) | (start - smin), the end travels as payload.
    std::vector<std::uint64_t> keys(m);
    std::vector<std::int64_t> ends(m);
    for (std::size_t i = 0, j = 0; i < n; ++i) {
      if (iv.end[i] <= iv.start[i]) continue;
      std::uint64_t const off = static_cast<std::uint64_t>(iv.start[i]) - base;
      keys[j] = rbits == 64 ? off : (std::uint64_t{iv.group[i]} << rbits) | off;
      ends[j] = iv.end[i];
      ++j;
    }
    radix_sort<std::int64_t>(keys, ends, std::max(1, rbits + gbits), threads);
    std::uint64_t const mask = rbits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rbits) - 1;
    auto get = [&](std::size_t i) {
      std::uint64_t const k = keys[i];
      auto const g = static_cast<group_id>(rbits == 64 ? 0 : k >> rbits);
      return std::tuple{g, static_cast<std::int64_t>((k & mask) + base), ends[i]};
    };
    return sweep(get, m, threads);
  }

  // Wide case (huge time range and many groups): stable sort by start, then stably by group.
  std::vector<std::uint64_t> keys(m);
  std::vector<std::uint64_t> index(m);
  for (std::size_t i = 0, j = 0; i < n; ++i) {
    if (iv.end[i] <= iv.start[i]) continue;
    keys[j] = static_cast<std::uint64_t>(iv.start[i]) - base;
    index[j] = i;
    ++j;
  }
  radix_sort<std::uint64_t>(keys, index, std::max(1, rbits), threads);
  for (std::size_t j = 0; j < m; ++j) keys[j] = iv.group[index[j]];
  radix_sort<std::uint64_t>(keys, index, std::max(1, gbits), threads);
  auto get = [&](std::size_t i) {
    std::size_t const k = index[i];
    return std::tuple{iv.group[k], iv.start[k], iv.end[k]};
  };
  return sweep(get, m, threads);
}

}  // namespace tracesweep::cpu
