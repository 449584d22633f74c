// SPDX-License-Identifier: Apache-2.0
// Host helpers over interval unions: lengths, merges, classes.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

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

union_builder::union_builder(std::size_t members) {
  _out.group.reserve(members), _out.start.reserve(members), _out.end.reserve(members);
}

void union_builder::close() {
  if (!_open) return;
  _out.group.push_back(_group), _out.start.push_back(_start), _out.end.push_back(_end);
  _open = false;
}

void union_builder::append(interval_union const& u) {
  std::size_t k = 0;
  for (; k < u.size() && _open && u.group[k] == _group && u.start[k] <= _end; ++k)
    _end = std::max(_end, u.end[k]);
  if (k == u.size()) return;
  close();
  auto const last = u.size() - 1;  // stays open: a later member may still extend it
  _out.group.insert(_out.group.end(), u.group.begin() + long(k), u.group.begin() + long(last));
  _out.start.insert(_out.start.end(), u.start.begin() + long(k), u.start.begin() + long(last));
  _out.end.insert(_out.end.end(), u.end.begin() + long(k), u.end.begin() + long(last));
  _group = u.group[last], _start = u.start[last], _end = u.end[last], _open = true;
}

interval_union union_builder::finish() {
  close();
  return std::exchange(_out, {});
}

interval_union merge_unions(interval_union const& a, interval_union const& b) {
  union_builder out(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    bool const from_a =
        j == b.size() || (i < a.size() && (a.group[i] < b.group[j] ||
                                           (a.group[i] == b.group[j] && a.start[i] <= b.start[j])));
    if (from_a) {
      out.add(a.group[i], a.start[i], a.end[i]);
      ++i;
    } else {
      out.add(b.group[j], b.start[j], b.end[j]);
      ++j;
    }
  }
  return out.finish();
}

interval_union merge_unions(interval_union&& a, interval_union&& b) {
  if (a.size() == 0) return std::move(b);
  if (b.size() == 0) return std::move(a);
  return merge_unions(std::as_const(a), std::as_const(b));
}

interval_union union_class(interval_union const& u, group_id classes, group_id which) {
  std::size_t members = 0;
  for (auto const g : u.group) members += g % classes == which ? 1 : 0;
  interval_union out;  // sized once: growing by doubling would copy and touch every page twice
  out.group.reserve(members), out.start.reserve(members), out.end.reserve(members);
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (u.group[i] % classes != which) continue;
    out.group.push_back(u.group[i] / classes);
    out.start.push_back(u.start[i]);
    out.end.push_back(u.end[i]);
  }
  return out;
}

}  // namespace tracesweep
