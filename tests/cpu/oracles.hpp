// SPDX-License-Identifier: Apache-2.0
// Obviously-correct (slow) reference implementations and random inputs for the primitive tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <vector>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/intervals.hpp>

namespace tracesweep::test {

/// Owning intervals, to build an interval_view from.
struct intervals {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> end;
  std::vector<group_id> group;
  void add(group_id g, std::int64_t s, std::int64_t e) {
    group.push_back(g);
    start.push_back(s);
    end.push_back(e);
  }
  [[nodiscard]] interval_view view() const { return {start, end, group}; }
};

/// Union by coordinate compression: every elementary slice between two consecutive endpoints is
/// covered when some interval of the group contains it (quadratic), covered slices that touch
/// are joined.
inline interval_union oracle_union(intervals const& in) {
  std::map<group_id, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < in.start.size(); ++i) members[in.group[i]].push_back(i);
  interval_union out;
  for (auto const& [g, idx] : members) {
    std::vector<std::int64_t> pts;
    for (auto i : idx) {
      pts.push_back(in.start[i]);
      pts.push_back(in.end[i]);
    }
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
      bool covered = false;
      for (auto i : idx) covered |= in.start[i] <= pts[k] && pts[k + 1] <= in.end[i];
      if (!covered) continue;
      if (!out.start.empty() && out.group.back() == g && out.end.back() == pts[k]) {
        out.end.back() = pts[k + 1];
      } else {
        out.group.push_back(g);
        out.start.push_back(pts[k]);
        out.end.push_back(pts[k + 1]);
      }
    }
  }
  return out;
}

/// Per-nanosecond coverage of each group over [0, horizon).
inline std::vector<std::vector<bool>> coverage(intervals const& in, std::size_t groups,
                                               std::int64_t horizon) {
  std::vector<std::vector<bool>> cov(groups, std::vector<bool>(horizon, false));
  for (std::size_t i = 0; i < in.start.size(); ++i)
    for (std::int64_t t = in.start[i]; t < in.end[i]; ++t) cov[in.group[i]][t] = true;
  return cov;
}

/// Random intervals in [0, horizon) over `groups` groups, with many zero-length, touching,
/// identical and nested ones.
inline intervals random_intervals(std::mt19937_64& rng, std::size_t n, std::size_t groups,
                                  std::int64_t horizon) {
  intervals out;
  std::uniform_int_distribution<std::int64_t> pos(0, horizon - 1);
  std::uniform_int_distribution<std::size_t> grp(0, groups - 1);
  std::uniform_int_distribution<int> kind(0, 9);
  for (std::size_t i = 0; i < n; ++i) {
    auto const g = static_cast<group_id>(grp(rng));
    std::int64_t const s = pos(rng);
    std::int64_t len = std::min<std::int64_t>(
        horizon - s, std::uniform_int_distribution<std::int64_t>(0, horizon / 20 + 1)(rng));
    int const k = kind(rng);
    if (k == 0) len = 0;                 // zero-length
    if (k == 1 && !out.start.empty()) {  // touch the previous one
      std::int64_t const prev_end = out.end.back();
      if (prev_end < horizon) {
        out.add(out.group.back(), prev_end, std::min(horizon, prev_end + len));
        continue;
      }
    }
    if (k == 2 && !out.start.empty()) {  // duplicate
      out.add(out.group.back(), out.start.back(), out.end.back());
      continue;
    }
    out.add(g, s, s + len);
  }
  return out;
}

/// The exact statistics of one key's values by sorting them: sums term by term, min, max, the
/// two middle values, and for each quantile q the values at ranks floor and ceil of q·(n−1)
/// (q in [0, 1]; `v` not empty).
inline exact_stats oracle_stats(std::uint32_t key, std::vector<std::int64_t> v,
                                std::span<double const> quantiles) {
  std::sort(v.begin(), v.end());
  exact_stats s;
  s.key = key;
  s.count = v.size();
  for (auto x : v) {
    s.sum += x;
    s.sum_sq += static_cast<uint128>(static_cast<int128>(x) * x);
  }
  s.min = v.front();
  s.max = v.back();
  s.median_lo = v[(v.size() - 1) / 2];
  s.median_hi = v[v.size() / 2];
  for (double q : quantiles) {
    double const pos = q * static_cast<double>(v.size() - 1);
    s.quantile_lo.push_back(v[static_cast<std::size_t>(std::floor(pos))]);
    s.quantile_hi.push_back(v[static_cast<std::size_t>(std::ceil(pos))]);
  }
  return s;
}

}  // namespace tracesweep::test
