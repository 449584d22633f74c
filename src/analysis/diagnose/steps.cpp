// SPDX-License-Identifier: Apache-2.0
// The steps a diagnosis reads per rank: the model's profiler steps, or, for a rank without any
// (nsys exports), its host ranges whose whole name matches the step pattern (NVTX ranges such as
// ProfilerStep#12 that training loops push). Rows of one name are one step.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Merges the rows of one name into one window per name, in start order.
std::vector<step> windows_of(event_table const& t, std::vector<std::size_t> const& rows) {
  std::map<string_id, step> by_name;
  for (auto const r : rows) {
    auto [it, fresh] = by_name.try_emplace(t.name[r], step{t.name[r], t.start_ns[r], t.end_ns[r]});
    if (fresh) continue;
    it->second.start = std::min(it->second.start, t.start_ns[r]);
    it->second.end = std::max(it->second.end, t.end_ns[r]);
  }
  std::vector<step> out;
  for (auto const& [name, s] : by_name) out.push_back(s);
  std::sort(out.begin(), out.end(), [](step const& a, step const& b) {
    return std::tie(a.start, a.end, a.name) < std::tie(b.start, b.end, b.name);
  });
  return out;
}

}  // namespace

std::int64_t step_at(std::span<step const> steps, std::int64_t at) {
  auto const k = std::upper_bound(steps.begin(), steps.end(), at,
                                  [](std::int64_t v, step const& s) { return v < s.start; }) -
                 steps.begin();
  if (k == 0) return -1;
  auto const idx = static_cast<std::size_t>(k - 1);
  return steps[idx].end > at ? static_cast<std::int64_t>(idx) : -1;
}

step_windows find_steps(trace_model const& model, diagnose_options const& options) {
  auto const& t = model.table();
  auto const ranks = model.ranks();
  std::vector<std::vector<std::size_t>> rows(ranks.size());
  bool missing = false;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto const s = model.steps(r);
    rows[r].assign(s.begin(), s.end());
    missing = missing || s.empty();
  }
  if (missing && !options.step_pattern.empty()) {
    comm_classifier const pattern("^(?:" + options.step_pattern + ")$");
    std::vector<std::int8_t> match(t.strings().size(), -1);  // per string id: unknown, no, yes
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t.device[i] >= 0 || t.kind[i] != event_kind::user_range) continue;
      auto const r = model.rank_index(t.rank[i]);
      if (r >= ranks.size() || !model.steps(r).empty()) continue;
      auto& m = match[t.name[i]];
      if (m < 0) m = pattern.matches(t.strings().at(t.name[i])) ? 1 : 0;
      if (m == 1 && t.end_ns[i] > t.start_ns[i]) rows[r].push_back(i);
    }
  }
  step_windows out;
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (auto const& r : rows) {
    out.rows.push_back(windows_of(t, r));
    for (auto const i : r) threads[{t.input_of(i), t.stream[i]}].push_back(i);
  }
  for (auto const& [k, r] : threads) out.by_thread[k] = windows_of(t, r);
  return out;
}

}  // namespace tracesweep::diagnose_detail
