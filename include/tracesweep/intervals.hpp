// SPDX-License-Identifier: Apache-2.0
// Plain host types the analysis primitives take and return. Intervals are half-open
// [start, end) in int64 nanoseconds, tagged with a dense group id (a device, a stream, a rank…).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace tracesweep {

using group_id = std::uint32_t;

/// Non-owning view of unsorted intervals: three spans of equal length.
struct interval_view {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  std::span<group_id const> group;
  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
};

/// A union of intervals per group: sorted by (group, start), disjoint and non-touching within a
/// group, no zero-length members.
struct interval_union {
  std::vector<group_id> group;
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> end;
  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
  [[nodiscard]] interval_view view() const noexcept { return {start, end, group}; }
};

/// The one host union sweep. Members arrive in (group, start) order; a member that overlaps or
/// touches the open member of its group extends it, any other closes it and opens a new one.
/// Callers drop zero-length members they do not want (a union has none); the builder keeps what
/// it is given. The CPU backend's union, merge_unions, the CUDA backend's stitching of chunk
/// unions and the row filter's windows all build through it.
class union_builder {
 public:
  union_builder() = default;
  /// Room for `members` members, so that adding them never regrows the columns.
  explicit union_builder(std::size_t members);

  void add(group_id g, std::int64_t s, std::int64_t e) {
    if (_open && extends(_group, _end, g, s)) {
      if (e > _end) _end = e;
      return;
    }
    close();
    _group = g, _start = s, _end = e, _open = true;
  }

  /// add() of the items [begin, end) in (group, start) order, `get(i)` yielding (group, start,
  /// end): the same rule with the open member held in locals (the loop runs at memory speed).
  template <typename Get>
  void add_all(Get const& get, std::size_t begin, std::size_t end) {
    if (begin == end) return;
    auto [g, s, e] = get(begin);
    if (_open && extends(_group, _end, g, s))
      g = _group, s = _start, e = std::max(e, _end), _open = false;
    else
      close();
    for (std::size_t i = begin + 1; i < end; ++i) {
      auto const [g2, s2, e2] = get(i);
      if (extends(g, e, g2, s2)) {
        if (e2 > e) e = e2;
        continue;
      }
      _out.group.push_back(g), _out.start.push_back(s), _out.end.push_back(e);
      g = g2, s = s2, e = e2;
    }
    _group = g, _start = s, _end = e, _open = true;
  }

  /// Adds a union whose members all come at or after the ones added so far, in order: its
  /// leading members of the open group merge into it, the rest are appended as they are.
  void append(interval_union const& u);

  /// The union built so far; the builder is left empty.
  [[nodiscard]] interval_union finish();

 private:
  /// The rule: a member extends the open one of its group when it starts at or before its end.
  static bool extends(group_id open_group, std::int64_t open_end, group_id g,
                      std::int64_t s) noexcept {
    return g == open_group && s <= open_end;
  }
  void close();
  interval_union _out;
  group_id _group = 0;
  std::int64_t _start = 0;
  std::int64_t _end = 0;
  bool _open = false;
};

/// Total covered length per group (index = group id, `group_count` entries).
[[nodiscard]] std::vector<std::int64_t> busy_per_group(interval_union const& u,
                                                       std::size_t group_count);

/// The union of two unions, by one linear merge: no sort.
[[nodiscard]] interval_union merge_unions(interval_union const& a, interval_union const& b);
/// The same of unions the caller gives up: when one is empty, the other is returned as it is
/// (no copy).
[[nodiscard]] interval_union merge_unions(interval_union&& a, interval_union&& b);

/// The members of `u` whose group g has g % `classes` == `which`, regrouped as g / `classes`:
/// one class of a union whose groups were (group × classes + class).
[[nodiscard]] interval_union union_class(interval_union const& u, group_id classes, group_id which);

/// An idle hole of a union inside its group's window.
struct gap {
  group_id group = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  [[nodiscard]] std::int64_t duration() const noexcept { return end - start; }
  friend bool operator==(gap const&, gap const&) = default;
};

/// The window each group's gaps are looked for in (index = group id).
struct group_windows {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
};

}  // namespace tracesweep
