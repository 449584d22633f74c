// SPDX-License-Identifier: Apache-2.0
// Idle gaps: one walk over each group's union segments inside the group's window; the longest
// `top_per_group` are kept with a bounded heap, so the cost is O(n log k).
#include <algorithm>
#include <vector>

#include "primitives.hpp"

namespace tracesweep::cpu {
namespace {

/// Gap order within a group: longer first, then earlier.
bool better(gap const& a, gap const& b) {
  auto const da = a.duration();
  auto const db = b.duration();
  return da != db ? da > db : a.start < b.start;
}

/// Collects the gaps of one group, keeping the best `top` (0 = all).
class gap_collector {
 public:
  gap_collector(std::int64_t min_gap, std::size_t top)
      : _min_len(static_cast<std::uint64_t>(std::max<std::int64_t>(min_gap, 1))), _top(top) {}

  void reset() { _gaps.clear(); }

  /// Offers the hole [a, b), a < b.
  void offer(group_id g, std::int64_t a, std::int64_t b) {
    if (static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a) < _min_len) return;
    gap const x{g, a, b};
    if (_top == 0 || _gaps.size() < _top) {
      _gaps.push_back(x);
      if (_top != 0) std::push_heap(_gaps.begin(), _gaps.end(), better);  // worst on top
    } else if (better(x, _gaps.front())) {
      std::pop_heap(_gaps.begin(), _gaps.end(), better);
      _gaps.back() = x;
      std::push_heap(_gaps.begin(), _gaps.end(), better);
    }
  }

  /// Appends the kept gaps in (duration desc, start asc) order.
  void flush_into(std::vector<gap>& out) {
    std::sort(_gaps.begin(), _gaps.end(), better);
    out.insert(out.end(), _gaps.begin(), _gaps.end());
  }

 private:
  std::uint64_t _min_len;
  std::size_t _top;
  std::vector<gap> _gaps;
};

}  // namespace

std::vector<gap> gap_scan(interval_union const& u, group_windows windows, std::int64_t min_gap,
                          std::size_t top_per_group, unsigned /*threads*/) {
  std::size_t const groups = windows.start.size();
  std::size_t const n = u.size();

  std::vector<gap> out;
  gap_collector collector(min_gap, top_per_group);
  std::size_t i = 0;
  for (std::size_t gi = 0; gi < groups; ++gi) {
    auto const g = static_cast<group_id>(gi);
    std::size_t const first = i;
    while (i < n && u.group[i] == g) ++i;
    std::int64_t const ws = windows.start[gi];
    std::int64_t const we = windows.end[gi];
    if (we <= ws) continue;  // empty window: no holes
    collector.reset();
    std::int64_t cursor = ws;  // everything before `cursor` is covered or outside the window
    for (std::size_t k = first; k < i && cursor < we; ++k) {
      if (u.start[k] > cursor) collector.offer(g, cursor, std::min(u.start[k], we));
      cursor = std::max(cursor, u.end[k]);
    }
    if (cursor < we) collector.offer(g, cursor, we);
    collector.flush_into(out);
  }
  return out;
}

}  // namespace tracesweep::cpu
