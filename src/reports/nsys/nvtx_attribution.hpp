// SPDX-License-Identifier: Apache-2.0
// Which NVTX ranges (or user annotations) a kernel belongs to: those of its launching call's
// (input, rank, thread) that enclose the call (range start ≤ call start, call end ≤ range end).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::stats {

/// (range row, device row) for every kernel (with `all_gpu_operations`: every kernel, memcpy
/// and memset) and every range enclosing its launching call: per thread one sweep over the calls
/// by start, the ranges begun so far kept by end.
[[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> nvtx_attributions(
    trace_model const& model, bool all_gpu_operations = false);

/// A range's place among the ranges of its thread. Range B encloses range A when B starts at or
/// before A and ends at or after it and comes first in (start, −end, row) order; level = the
/// ranges enclosing it (0 at the top); children = the ranges it encloses one level down.
struct range_nesting {
  std::int64_t level = 0;
  std::int64_t children = 0;
};
/// nsys's Style of a range: "StartEnd" or "PushPop".
[[nodiscard]] std::string_view range_style_name(event_table const& t, std::size_t range) noexcept;

/// Per row (zeros for rows that are not ranges).
[[nodiscard]] std::vector<range_nesting> nvtx_range_nesting(event_table const& t);

/// The ranges begun before a range that are still open at its start, as (end, row): those from
/// `lower_bound({range end, 0})` on enclose it.
using open_ranges = std::multiset<std::pair<std::int64_t, std::size_t>>;

/// Visits the rows `is_range` picks, thread by thread ((input, rank, thread id)) in nesting order
/// (start, −end, row), as `visit(row, open)` with the ranges open at its start.
template <class IsRange, class Visit>
void sweep_ranges_by_thread(event_table const& t, IsRange&& is_range, Visit&& visit) {
  std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_range(i)) threads[{t.input_of(i), t.rank[i], t.stream[i]}].push_back(i);
  auto const order = [&](std::size_t r) { return std::tuple(t.start_ns[r], -t.end_ns[r], r); };
  for (auto& [thread, rs] : threads) {
    std::sort(rs.begin(), rs.end(), [&](auto a, auto b) { return order(a) < order(b); });
    open_ranges open;
    for (auto const a : rs) {
      while (!open.empty() && open.begin()->first < t.start_ns[a]) open.erase(open.begin());
      visit(a, std::as_const(open));
      open.insert({t.end_ns[a], a});
    }
  }
}

/// Per row: the innermost range enclosing the kernel's launching call (the latest start, then
/// the earliest end), or -1 (not a kernel, or no range encloses its call).
[[nodiscard]] std::vector<std::int64_t> innermost_nvtx_range(trace_model const& model);

}  // namespace tracesweep::stats
