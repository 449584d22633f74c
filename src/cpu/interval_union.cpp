// SPDX-License-Identifier: Apache-2.0
// Union per group: drop empty intervals, sort by (group, start) with the radix sort (a packed
// 64-bit key when group and start range fit, and not when the keys come in order; else two
// stable passes), then the host sweep (union_builder) in contiguous chunks that are stitched
// afterwards. Of intervals, or of rows of whole columns (gathered once, into the sort's keys).
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

namespace {

/// The union of n intervals, interval i being at(i) = (start, end, group).
template <typename At>
interval_union union_of(std::size_t n, At const& at, unsigned threads) {
  threads = std::max(1u, threads);
  std::size_t m = 0;
  std::int64_t smin = std::numeric_limits<std::int64_t>::max();
  std::int64_t smax = std::numeric_limits<std::int64_t>::min();
  group_id gmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto const [start, end, group] = at(i);
    if (end <= start) continue;
    ++m;
    smin = std::min(smin, start);
    smax = std::max(smax, start);
    gmax = std::max(gmax, group);
  }
  if (m == 0) return {};

  auto const base = static_cast<std::uint64_t>(smin);
  int const rbits = std::bit_width(static_cast<std::uint64_t>(smax) - base);
  int const gbits = std::bit_width(std::uint64_t{gmax});

  if (rbits + gbits <= 64) {
    // Packed key (group << rbits) | (start - smin), the end travels as payload; no sort when the
    // keys come in order already (rows read in order, grouped as they come).
    std::vector<std::uint64_t> keys(m);
    std::vector<std::int64_t> ends(m);
    bool in_order = true;
    for (std::size_t i = 0, j = 0; i < n; ++i) {
      auto const [start, end, group] = at(i);
      if (end <= start) continue;
      std::uint64_t const off = static_cast<std::uint64_t>(start) - base;
      keys[j] = rbits == 64 ? off : (std::uint64_t{group} << rbits) | off;
      ends[j] = end;
      in_order = in_order && (j == 0 || keys[j - 1] <= keys[j]);
      ++j;
    }
    if (!in_order) radix_sort<std::int64_t>(keys, ends, std::max(1, rbits + gbits), threads);
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
    auto const [start, end, group] = at(i);
    if (end <= start) continue;
    keys[j] = static_cast<std::uint64_t>(start) - base;
    index[j] = i;
    ++j;
  }
  radix_sort<std::uint64_t>(keys, index, std::max(1, rbits), threads);
  for (std::size_t j = 0; j < m; ++j) keys[j] = std::get<2>(at(index[j]));
  radix_sort<std::uint64_t>(keys, index, std::max(1, gbits), threads);
  auto get = [&](std::size_t i) {
    auto const [start, end, group] = at(index[i]);
    return std::tuple{group, start, end};
  };
  return sweep(get, m, threads);
}

}  // namespace

interval_union union_by_group(interval_view iv, unsigned threads) {
  return union_of(
      iv.size(),
      [&iv](std::size_t i) {
        return std::tuple{iv.start[i], iv.end[i], iv.group[i]};
      },
      threads);
}

interval_union union_of_rows(std::span<std::int64_t const> start, std::span<std::int64_t const> end,
                             std::span<std::size_t const> rows, std::span<group_id const> group,
                             unsigned threads) {
  return union_of(
      rows.size(),
      [&](std::size_t k) {
        return std::tuple{start[rows[k]], end[rows[k]], group[k]};
      },
      threads);
}

}  // namespace tracesweep::cpu
