// SPDX-License-Identifier: Apache-2.0
// The steps a diagnosis reads per rank: the model's profiler steps, or, for a rank without any
// (nsys exports), its host ranges whose whole name matches the step pattern (NVTX ranges such as
// ProfilerStep#12 that training loops push).
#include <algorithm>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

step_windows find_steps(trace_model const& model, diagnose_options const& options) {
  auto const& t = model.table();
  auto const ranks = model.ranks();
  step_windows out;
  out.rows.resize(ranks.size());
  bool missing = false;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto const s = model.steps(r);
    out.rows[r].assign(s.begin(), s.end());
    missing = missing || s.empty();
  }
  if (!missing || options.step_pattern.empty()) return out;

  comm_classifier const pattern("^(?:" + options.step_pattern + ")$");
  std::vector<std::int8_t> match(t.strings().size(), -1);  // per string id: unknown, no, yes
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.device[i] >= 0 || t.kind[i] != event_kind::user_range) continue;
    auto const r = model.rank_index(t.rank[i]);
    if (r >= ranks.size() || !model.steps(r).empty()) continue;
    auto& m = match[t.name[i]];
    if (m < 0) m = pattern.matches(t.strings().at(t.name[i])) ? 1 : 0;
    if (m == 1 && t.end_ns[i] > t.start_ns[i]) out.rows[r].push_back(i);
  }
  for (auto& rows : out.rows)
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(t.start_ns[a], a) < std::tie(t.start_ns[b], b);
    });
  return out;
}

}  // namespace tracesweep::diagnose_detail
