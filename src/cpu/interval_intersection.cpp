// SPDX-License-Identifier: Apache-2.0
// |a ∩ b| per group: a two-pointer walk over two unions sorted by (group, start).
#include <algorithm>
#include <vector>

#include "primitives.hpp"

namespace tracesweep::cpu {

std::vector<std::int64_t> intersection_by_group(interval_union const& a, interval_union const& b,
                                                std::size_t group_count) {
  std::vector<std::int64_t> out(group_count, 0);
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (a.group[i] != b.group[j]) {
      (a.group[i] < b.group[j] ? i : j)++;
      continue;
    }
    std::int64_t const lo = std::max(a.start[i], b.start[j]);
    std::int64_t const hi = std::min(a.end[i], b.end[j]);
    if (hi > lo) out[a.group[i]] += hi - lo;
    // Advance the one that ends first; its remaining overlap partners all start later.
    (a.end[i] < b.end[j] ? i : j)++;
  }
  return out;
}

}  // namespace tracesweep::cpu
