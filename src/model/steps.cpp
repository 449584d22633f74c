// SPDX-License-Identifier: Apache-2.0
// Steps per rank, by (start, row), and the span of each rank's kept rows.
#include <algorithm>
#include <climits>

#include "model/model_parts.hpp"

namespace tracesweep {

trace_model::steps_part::steps_part(trace_model const& model) {
  auto const& t = model.table();
  auto const nr = model.ranks().size();
  std::vector<std::int64_t> lo(nr, INT64_MAX), hi(nr, INT64_MIN);
  std::int32_t last_rank = 0;
  std::size_t r = model.rank_index(last_rank);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.rank[i] != last_rank) last_rank = t.rank[i], r = model.rank_index(last_rank);
    if (model.kept(i)) lo[r] = std::min(lo[r], t.start_ns[i]), hi[r] = std::max(hi[r], t.end_ns[i]);
    if (t.kind[i] == event_kind::profiler_step && t.device[i] < 0) rows.push_back(i);
  }
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    auto const ra = model.rank_index(t.rank[a]), rb = model.rank_index(t.rank[b]);
    return std::tie(ra, t.start_ns[a], a) < std::tie(rb, t.start_ns[b], b);
  });
  offsets.assign(nr + 1, 0);
  for (auto i : rows) ++offsets[model.rank_index(t.rank[i]) + 1];
  for (std::size_t r = 0; r < nr; ++r) offsets[r + 1] += offsets[r];
  span_ns.resize(nr);
  for (std::size_t r = 0; r < nr; ++r) span_ns[r] = hi[r] > lo[r] ? hi[r] - lo[r] : 0;
}

std::span<std::size_t const> trace_model::steps(std::size_t rank_index) const {
  auto const& s = step_part();
  return {s.rows.data() + s.offsets[rank_index], s.offsets[rank_index + 1] - s.offsets[rank_index]};
}

std::int64_t trace_model::rank_span(std::size_t rank_index) const {
  return step_part().span_ns[rank_index];
}

}  // namespace tracesweep
