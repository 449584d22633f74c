// SPDX-License-Identifier: Apache-2.0
// Steps per rank and the denominators: |∪ steps| by a plain host sweep over the rank's steps
// (already sorted by start), else the span of the rank's kept rows.
#include <algorithm>
#include <climits>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// |∪ [start, end)| of intervals sorted by start; touching intervals merge, empty ones add nothing.
std::int64_t union_length(event_table const& t, std::span<std::size_t const> rows) {
  std::int64_t total = 0, cur_start = 0, cur_end = 0;
  bool open = false;
  for (auto i : rows) {
    auto const s = t.start_ns[i], e = t.end_ns[i];
    if (e <= s) continue;
    if (open && s <= cur_end) {
      cur_end = std::max(cur_end, e);
      continue;
    }
    if (open) total += cur_end - cur_start;
    cur_start = s, cur_end = e, open = true;
  }
  return open ? total + (cur_end - cur_start) : total;
}

}  // namespace

trace_model::steps_part::steps_part(trace_model const& model) {
  auto const& t = model.table();
  auto const nr = model.ranks().size();
  std::vector<std::int64_t> lo(nr, INT64_MAX), hi(nr, INT64_MIN);
  auto const& kept = model.links().kept;
  std::int32_t last_rank = 0;
  std::size_t r = model.rank_index(last_rank);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.rank[i] != last_rank) last_rank = t.rank[i], r = model.rank_index(last_rank);
    if (kept[i]) lo[r] = std::min(lo[r], t.start_ns[i]), hi[r] = std::max(hi[r], t.end_ns[i]);
    if (t.kind[i] == event_kind::profiler_step && t.device[i] < 0) rows.push_back(i);
  }
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    auto const ra = model.rank_index(t.rank[a]), rb = model.rank_index(t.rank[b]);
    return std::tie(ra, t.start_ns[a], a) < std::tie(rb, t.start_ns[b], b);
  });
  offsets.assign(nr + 1, 0);
  for (auto i : rows) ++offsets[model.rank_index(t.rank[i]) + 1];
  for (std::size_t r = 0; r < nr; ++r) offsets[r + 1] += offsets[r];
  denominators.resize(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    std::span<std::size_t const> const steps(rows.data() + offsets[r], offsets[r + 1] - offsets[r]);
    auto& d = denominators[r];
    d.from_steps = !steps.empty();
    d.total_ns = d.from_steps ? union_length(t, steps) : (hi[r] > lo[r] ? hi[r] - lo[r] : 0);
  }
}

std::span<std::size_t const> trace_model::steps(std::size_t rank_index) const {
  auto const& s = step_part();
  return {s.rows.data() + s.offsets[rank_index], s.offsets[rank_index + 1] - s.offsets[rank_index]};
}

denominator trace_model::rank_denominator(std::size_t rank_index) const {
  return step_part().denominators[rank_index];
}

}  // namespace tracesweep
