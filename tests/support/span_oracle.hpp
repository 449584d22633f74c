// SPDX-License-Identifier: Apache-2.0
// Brute-force interval arithmetic for the table oracles: sort and merge spans, add their lengths,
// intersect two lists pair by pair. Straightforward code the analyses' unions are checked against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tracesweep::test {

/// A half-open span [first, second) in ns.
using span_ns = std::pair<std::int64_t, std::int64_t>;

/// The spans sorted and merged (touching ones too), empty ones left out.
inline std::vector<span_ns> merged(std::vector<span_ns> v) {
  std::sort(v.begin(), v.end());
  std::vector<span_ns> out;
  for (auto const& x : v) {
    if (x.first >= x.second) continue;
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  return out;
}

/// The lengths added.
inline std::int64_t length(std::vector<span_ns> const& v) {
  std::int64_t s = 0;
  for (auto const& x : v) s += x.second - x.first;
  return s;
}

/// |a ∩ b| of two merged lists, every pair intersected.
inline std::int64_t overlap(std::vector<span_ns> const& a, std::vector<span_ns> const& b) {
  std::int64_t s = 0;
  for (auto const& x : a)
    for (auto const& y : b)
      s += std::max<std::int64_t>(0, std::min(x.second, y.second) - std::max(x.first, y.first));
  return s;
}

}  // namespace tracesweep::test
