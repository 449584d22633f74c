// SPDX-License-Identifier: Apache-2.0
#include "cuda/detail/planning.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>

namespace tracesweep::cuda_detail {

std::vector<sort_pass> plan_sort_passes(std::span<int const> bits) {
  // Greedy from the least significant column: packing an ordered sequence into 64-bit bins
  // greedily from one end gives the fewest bins.
  std::vector<sort_pass> passes;
  sort_pass current;
  for (int c = static_cast<int>(bits.size()) - 1; c >= 0; --c) {
    int const b = bits[static_cast<std::size_t>(c)];
    if (b <= 0) continue;
    if (current.end_bit + b > 64) {
      passes.push_back(std::move(current));
      current = {};
    }
    current.columns.push_back({c, current.end_bit});
    current.end_bit += b;
  }
  if (current.end_bit > 0) passes.push_back(std::move(current));
  return passes;
}

std::size_t rows_per_chunk(std::size_t limit_bytes, std::size_t bytes_per_row,
                           std::size_t rows) noexcept {
  if (limit_bytes == 0 || bytes_per_row == 0) return std::max<std::size_t>(rows, 1);
  return std::clamp<std::size_t>(limit_bytes / bytes_per_row, 1, std::max<std::size_t>(rows, 1));
}

std::size_t radix_sort_temp_bytes(std::size_t n, int end_bit) noexcept {
  constexpr std::size_t portion = std::size_t{1} << 28, tile = 1024, digits = 256;
  auto const align = [](std::size_t b) { return (b + 255) / 256 * 256; };
  std::size_t const passes = static_cast<std::size_t>(std::clamp(end_bit, 1, 64) + 7) / 8;
  std::size_t const portions = std::max<std::size_t>((n + portion - 1) / portion, 1);
  std::size_t const blocks = std::max<std::size_t>((std::min(n, portion) + tile - 1) / tile, 1);
  return align(portions * passes * digits * 4) + align(blocks * digits * 4) +
         align(portions * passes * 4) + 256;
}

std::vector<row_range> split_rows(std::size_t rows, std::size_t chunk_rows) {
  std::vector<row_range> out;
  chunk_rows = std::max<std::size_t>(chunk_rows, 1);
  for (std::size_t b = 0; b < rows; b += chunk_rows)
    out.push_back({b, std::min(rows, b + chunk_rows)});
  return out;
}

void merge_sorted_runs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                       std::span<row_range const> runs) {
  if (runs.size() <= 1) return;
  std::vector<std::uint64_t> out_keys(keys.size());
  std::vector<std::uint32_t> out_values(values.size());
  // (key, run, position): the smallest key first, ties by run, so the merge is stable.
  using head = std::tuple<std::uint64_t, std::size_t, std::size_t>;
  std::priority_queue<head, std::vector<head>, std::greater<>> heap;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (runs[r].size() > 0) heap.emplace(keys[runs[r].begin], r, runs[r].begin);
  std::size_t o = 0;
  while (!heap.empty()) {
    auto [k, r, i] = heap.top();
    heap.pop();
    out_keys[o] = k;
    out_values[o] = values[i];
    ++o;
    if (i + 1 < runs[r].end) heap.emplace(keys[i + 1], r, i + 1);
  }
  std::copy(out_keys.begin(), out_keys.end(), keys.begin());
  std::copy(out_values.begin(), out_values.end(), values.begin());
}

interval_union stitch_unions(std::vector<interval_union> const& parts) {
  if (parts.size() == 1) return parts.front();
  struct member {
    group_id group;
    std::int64_t start;
    std::int64_t end;
  };
  std::vector<member> all;
  std::size_t total = 0;
  for (auto const& p : parts) total += p.size();
  all.reserve(total);
  for (auto const& p : parts)
    for (std::size_t i = 0; i < p.size(); ++i) all.push_back({p.group[i], p.start[i], p.end[i]});
  std::sort(all.begin(), all.end(), [](member const& a, member const& b) {
    return std::tie(a.group, a.start) < std::tie(b.group, b.start);
  });
  union_builder out(all.size());
  for (auto const& m : all) out.add(m.group, m.start, m.end);
  return out.finish();
}

std::vector<gap> select_top_gaps(std::vector<gap> gaps, std::size_t top_per_group) {
  std::sort(gaps.begin(), gaps.end(), [](gap const& a, gap const& b) {
    if (a.group != b.group) return a.group < b.group;
    if (a.duration() != b.duration()) return a.duration() > b.duration();
    return a.start < b.start;
  });
  if (top_per_group == 0) return gaps;
  std::vector<gap> out;
  std::size_t in_group = 0;
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    in_group = (i > 0 && gaps[i].group == gaps[i - 1].group) ? in_group + 1 : 0;
    if (in_group < top_per_group) out.push_back(gaps[i]);
  }
  return out;
}

std::vector<gap> trailing_gaps(interval_union const& u, group_windows windows,
                               std::int64_t min_gap) {
  std::size_t const groups = windows.start.size();
  std::vector<std::int64_t> last_end(groups);
  std::vector<bool> seen(groups, false);
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (u.group[i] >= groups) continue;
    last_end[u.group[i]] = u.end[i];  // sorted by (group, start): the last one wins
    seen[u.group[i]] = true;
  }
  std::vector<gap> out;
  std::int64_t const shortest = std::max<std::int64_t>(min_gap, 1);
  for (std::size_t g = 0; g < groups; ++g) {
    std::int64_t const from = seen[g] ? std::max(windows.start[g], last_end[g]) : windows.start[g];
    std::int64_t const to = windows.end[g];
    if (to > from && to - from >= shortest) out.push_back({static_cast<group_id>(g), from, to});
  }
  return out;
}

row_range overlapping_rows(interval_union const& b, group_id first_group, std::int64_t first_start,
                           group_id last_group, std::int64_t last_end) {
  auto key_less = [&](std::size_t i, group_id g, std::int64_t t) {
    return b.group[i] < g || (b.group[i] == g && b.start[i] < t);
  };
  // lo: the last member starting at or before first_start in first_group (it may reach into
  // the chunk), or the first member of that group after it.
  std::size_t lo = 0, hi = b.size();
  {
    std::size_t l = 0,
                r = b.size();  // first index with (group, start) > (first_group, first_start)
    while (l < r) {
      std::size_t const m = (l + r) / 2;
      if (key_less(m, first_group, first_start) ||
          (b.group[m] == first_group && b.start[m] == first_start))
        l = m + 1;
      else
        r = m;
    }
    lo = l > 0 ? l - 1 : 0;
  }
  {
    std::size_t l = 0, r = b.size();  // first index with (group, start) >= (last_group, last_end)
    while (l < r) {
      std::size_t const m = (l + r) / 2;
      if (key_less(m, last_group, last_end))
        l = m + 1;
      else
        r = m;
    }
    hi = l;
  }
  if (hi < lo) hi = lo;
  return {lo, hi};
}

std::vector<key_chunk> plan_key_chunks(std::span<std::uint32_t const> keys,
                                       std::size_t chunk_rows) {
  std::map<std::uint32_t, std::size_t> counts;
  for (auto k : keys) ++counts[k];
  std::vector<key_chunk> out;
  for (auto const& [k, n] : counts) {
    if (!out.empty() && out.back().rows + n <= chunk_rows) {
      out.back().last_key = k;
      out.back().rows += n;
    } else {
      out.push_back({k, k, n});
    }
  }
  return out;
}

}  // namespace tracesweep::cuda_detail
