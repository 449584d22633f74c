// SPDX-License-Identifier: Apache-2.0
// Host helpers over interval unions: lengths, merges, classes.
#include <algorithm>
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

interval_union merge_unions(interval_union const& a, interval_union const& b) {
  interval_union out;
  std::size_t const total = a.size() + b.size();
  out.group.reserve(total), out.start.reserve(total), out.end.reserve(total);
  auto push = [&out](group_id g, std::int64_t s, std::int64_t e) {
    // Inputs come in (group, start) order: a member overlapping or touching the last one of its
    // group extends it, as union_by_group's sweep does.
    if (!out.group.empty() && out.group.back() == g && s <= out.end.back()) {
      out.end.back() = std::max(out.end.back(), e);
      return;
    }
    out.group.push_back(g), out.start.push_back(s), out.end.push_back(e);
  };
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    bool const from_a =
        j == b.size() || (i < a.size() && (a.group[i] < b.group[j] ||
                                           (a.group[i] == b.group[j] && a.start[i] <= b.start[j])));
    if (from_a) {
      push(a.group[i], a.start[i], a.end[i]);
      ++i;
    } else {
      push(b.group[j], b.start[j], b.end[j]);
      ++j;
    }
  }
  return out;
}

interval_union union_class(interval_union const& u, group_id classes, group_id which) {
  interval_union out;
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (u.group[i] % classes != which) continue;
    out.group.push_back(u.group[i] / classes);
    out.start.push_back(u.start[i]);
    out.end.push_back(u.end[i]);
  }
  return out;
}

}  // namespace tracesweep
