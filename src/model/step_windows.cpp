// SPDX-License-Identifier: Apache-2.0
// Step windows per rank and per (input, thread): the rank's profiler steps, or, for a rank without
// any, its host user ranges whose whole name the step pattern matches; rows of one name merged
// into one window (see trace_model.hpp).
#include <algorithm>
#include <tuple>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// Merges the rows of one name into one window per name, ordered by (start, end, name).
std::vector<step_window> windows_of(event_table const& t, std::vector<std::size_t> const& rows) {
  std::map<string_id, step_window> by_name;
  for (auto const r : rows) {
    auto [it, fresh] =
        by_name.try_emplace(t.name[r], step_window{t.name[r], t.start_ns[r], t.end_ns[r]});
    if (fresh) continue;
    it->second.start = std::min(it->second.start, t.start_ns[r]);
    it->second.end = std::max(it->second.end, t.end_ns[r]);
  }
  std::vector<step_window> out;
  for (auto const& [name, s] : by_name) out.push_back(s);
  std::sort(out.begin(), out.end(), [](step_window const& a, step_window const& b) {
    return std::tie(a.start, a.end, a.name) < std::tie(b.start, b.end, b.name);
  });
  return out;
}

bool is_host_user_range(event_table const& t, std::size_t i) {
  return t.device[i] < 0 && t.kind[i] == event_kind::user_range;
}

/// The step rows of each rank: its profiler steps, or its user ranges named like steps.
std::vector<std::vector<std::size_t>> step_rows(trace_model const& model) {
  auto const& t = model.table();
  auto const nr = model.ranks().size();
  std::vector<std::vector<std::size_t>> rows(nr);
  bool missing = false;
  for (std::size_t r = 0; r < nr; ++r) {
    auto const s = model.steps(r);
    rows[r].assign(s.begin(), s.end());
    missing = missing || s.empty();
  }
  if (!missing) return rows;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_host_user_range(t, i) || t.end_ns[i] <= t.start_ns[i]) continue;
    auto const r = model.rank_index(t.rank[i]);
    if (r < nr && model.steps(r).empty() && model.is_step_name(t.name[i])) rows[r].push_back(i);
  }
  return rows;
}

}  // namespace

trace_model::step_names_part::step_names_part(event_table const& t, name_regex const* step_regex) {
  step_name.assign(t.strings().size(), 0);
  if (!step_regex) return;
  std::vector<std::uint8_t> seen(t.strings().size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_host_user_range(t, i) || seen[t.name[i]]) continue;
    seen[t.name[i]] = 1;
    step_name[t.name[i]] = step_regex->matches(t.strings().at(t.name[i])) ? 1 : 0;
  }
}

trace_model::step_windows_part::step_windows_part(trace_model const& model) {
  auto const& t = model.table();
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (auto const& r : step_rows(model)) {
    by_rank.push_back(windows_of(t, r));
    for (auto const i : r) threads[{t.input_of(i), t.stream[i]}].push_back(i);
  }
  for (auto const& [k, r] : threads) by_thread[k] = windows_of(t, r);
}

bool trace_model::is_step_name(string_id name) const {
  auto const& s = step_names().step_name;
  return name < s.size() && s[name] != 0;
}

std::span<step_window const> trace_model::step_windows(std::size_t rank_index) const {
  return windows().by_rank[rank_index];
}

std::span<step_window const> trace_model::thread_step_windows(std::int32_t input,
                                                              std::int64_t thread) const {
  auto const& w = windows().by_thread;
  auto const it = w.find({input, thread});
  if (it == w.end()) return {};
  return it->second;
}

}  // namespace tracesweep
