// SPDX-License-Identifier: Apache-2.0
// Host helpers over interval unions.
#include <stdexcept>
#include <string>

#include <tracesweep/intervals.hpp>

namespace tracesweep {

std::vector<std::int64_t> busy_per_group(interval_union const& u, std::size_t group_count) {
  if (u.group.size() != u.size() || u.end.size() != u.size())
    throw std::invalid_argument("busy_per_group: union columns differ in size");
  std::vector<std::int64_t> busy(group_count, 0);
  for (std::size_t i = 0; i < u.size(); ++i) {
    group_id const g = u.group[i];
    if (g >= group_count)
      throw std::invalid_argument("busy_per_group: group " + std::to_string(g) + " >= group_count");
    std::int64_t len = 0;
    if (__builtin_sub_overflow(u.end[i], u.start[i], &len) ||
        __builtin_add_overflow(busy[g], len, &busy[g]))
      throw std::overflow_error("busy_per_group: busy time of group " + std::to_string(g) +
                                " exceeds int64 nanoseconds");
  }
  return busy;
}

}  // namespace tracesweep
