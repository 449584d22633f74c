// SPDX-License-Identifier: Apache-2.0
// apply_row_filter: one keep flag per row and per memory event, narrowed by each filter in turn
// (ranks, name, then the windowed filters: time range, steps, NVTX), then one compaction.
#include <tracesweep/model/row_filter.hpp>

#include <tracesweep/error.hpp>
#include <tracesweep/intervals.hpp>
#include <tracesweep/model/trace_model.hpp>

#include <tracesweep/model/name_regex.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace tracesweep {

namespace {

/// [start, end) of one window.
struct window {
  std::int64_t start = 0, end = 0;
};

/// Windows of each rank, sorted and merged where they touch or overlap, so that a row overlaps
/// one of them exactly when it overlaps the last one starting at or before its end.
class rank_windows {
 public:
  void add(std::int32_t rank, window w) { _by_rank[rank].push_back(w); }
  [[nodiscard]] bool empty() const noexcept { return _by_rank.empty(); }

  void merge() {
    for (auto& [rank, list] : _by_rank) {
      std::sort(list.begin(), list.end(), [](window a, window b) {
        return std::pair(a.start, a.end) < std::pair(b.start, b.end);
      });
      union_builder merged(list.size());
      for (auto w : list) merged.add(0, w.start, w.end);
      auto const u = merged.finish();
      list.resize(u.size());
      for (std::size_t k = 0; k < u.size(); ++k) list[k] = {u.start[k], u.end[k]};
    }
  }

  /// A row [start, end] overlaps a window [S, E) when start < E and end ≥ S.
  [[nodiscard]] bool overlaps(std::int32_t rank, std::int64_t start, std::int64_t end) const {
    auto const* w = last_starting_by(rank, end);
    return w && start < w->end;
  }
  /// A point t is inside a window when S ≤ t < E.
  [[nodiscard]] bool contains(std::int32_t rank, std::int64_t t) const {
    auto const* w = last_starting_by(rank, t);
    return w && t < w->end;
  }

 private:
  [[nodiscard]] window const* last_starting_by(std::int32_t rank, std::int64_t t) const {
    auto const found = _by_rank.find(rank);
    if (found == _by_rank.end()) return nullptr;
    auto const& list = found->second;
    auto const it = std::upper_bound(list.begin(), list.end(), t,
                                     [](std::int64_t v, window w) { return v < w.start; });
    return it == list.begin() ? nullptr : &*(it - 1);
  }

  std::map<std::int32_t, std::vector<window>> _by_rank;
};

/// The job's name in an error: its first input.
std::string job_path(event_table const& t) {
  return t.inputs().empty() ? std::string() : t.inputs().front().path;
}

void keep_ranks(event_table const& t, std::vector<std::int32_t> const& listed,
                std::vector<std::uint8_t>& keep, std::vector<std::uint8_t>& keep_memory) {
  auto const is_listed = [&](std::int32_t r) {
    return std::find(listed.begin(), listed.end(), r) != listed.end();
  };
  bool any = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const in = is_listed(t.rank[i]);
    any = any || in;
    keep[i] = keep[i] && in;
  }
  for (std::size_t j = 0; j < t.memory.size(); ++j)
    keep_memory[j] = keep_memory[j] && is_listed(t.memory.rank[j]);
  if (!any) throw input_error(job_path(t), "", "--ranks: no row of the listed ranks in the inputs");
}

void keep_names(event_table const& t, std::string const& pattern, std::vector<std::uint8_t>& keep) {
  name_regex const re(pattern, true);
  std::vector<std::int8_t> memo(t.strings().size(), -1);  // per string id: -1 unknown, 0, 1
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const named =
        t.kind[i] == event_kind::kernel || (t.kind[i] == event_kind::cpu_op && t.device[i] < 0);
    if (!named || !keep[i]) continue;
    auto& m = memo[t.name[i]];
    if (m < 0) m = re.matches(t.strings().at(t.name[i])) ? 1 : 0;
    keep[i] = m == 1;
  }
}

/// `base` + `offset`, held at the int64 limits.
std::int64_t saturated_add(std::int64_t base, std::int64_t offset) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(base, offset, &out)) return out;
  return offset > 0 ? std::numeric_limits<std::int64_t>::max()
                    : std::numeric_limits<std::int64_t>::min();
}

rank_windows time_windows(event_table const& t, time_range_filter const& f) {
  std::int64_t trace_start = 0;
  if (!t.empty()) trace_start = *std::min_element(t.start_ns.begin(), t.start_ns.end());
  auto resolve = [&](std::optional<time_bound> const& b, std::int64_t open) {
    if (!b) return open;
    return b->relative ? saturated_add(trace_start, b->ns) : b->ns;
  };
  window const w{resolve(f.start, std::numeric_limits<std::int64_t>::min()),
                 resolve(f.end, std::numeric_limits<std::int64_t>::max())};
  rank_windows out;
  std::vector<std::int32_t> ranks(t.rank.begin(), t.rank.end());
  ranks.insert(ranks.end(), t.memory.rank.begin(), t.memory.rank.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (w.start < w.end)
    for (auto r : ranks) out.add(r, w);
  return out;
}

rank_windows step_windows(event_table const& t, step_filter const& f) {
  trace_model const model(t);
  rank_windows out;
  for (std::size_t r = 0; r < model.ranks().size(); ++r) {
    auto const steps = model.steps(r);
    if (steps.size() <= static_cast<std::size_t>(f.first)) continue;
    auto const last = std::min(static_cast<std::size_t>(f.last), steps.size() - 1);
    auto const first_row = steps[static_cast<std::size_t>(f.first)];
    out.add(model.ranks()[r], {t.start_ns[first_row], t.end_ns[steps[last]]});
  }
  if (out.empty())
    throw input_error(job_path(t), "",
                      "--steps: no rank has profiler step " + std::to_string(f.first) +
                          " (steps count from 0 per rank)");
  return out;
}

rank_windows nvtx_windows(event_table const& t, nvtx_filter const& f) {
  auto const wanted = f.row_name();
  auto const id = t.strings().find(wanted);
  std::map<std::int32_t, std::vector<std::pair<std::int64_t, std::size_t>>> instances;
  if (id != string_pool::npos)
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t.name[i] == id && is_host_range(t, i))
        instances[t.rank[i]].push_back({t.start_ns[i], i});
  rank_windows out;
  for (auto& [rank, list] : instances) {
    std::sort(list.begin(), list.end());
    for (std::size_t k = 0; k < list.size(); ++k)
      if (!f.instance || static_cast<std::size_t>(*f.instance) == k)
        out.add(rank, {t.start_ns[list[k].second], t.end_ns[list[k].second]});
  }
  if (out.empty()) {
    std::string why = "--filter-nvtx: no NVTX range or user annotation named \"" + wanted + "\"";
    if (f.instance && !instances.empty())
      why += " has instance " + std::to_string(*f.instance) + " (instances count from 0 per rank)";
    throw input_error(job_path(t), "", why);
  }
  return out;
}

void keep_in(event_table const& t, rank_windows windows, std::vector<std::uint8_t>& keep,
             std::vector<std::uint8_t>& keep_memory) {
  windows.merge();
  for (std::size_t i = 0; i < t.size(); ++i)
    keep[i] = keep[i] && windows.overlaps(t.rank[i], t.start_ns[i], t.end_ns[i]);
  for (std::size_t j = 0; j < t.memory.size(); ++j)
    keep_memory[j] = keep_memory[j] && windows.contains(t.memory.rank[j], t.memory.time_ns[j]);
}

}  // namespace

std::string nvtx_filter::row_name() const {
  if (!domain) return name;
  std::string out = *domain;
  out.append(":").append(name);
  return out;
}

void apply_row_filter(event_table& table, row_filter const& f) {
  if (f.empty()) return;
  std::vector<std::uint8_t> keep(table.size(), 1), keep_memory(table.memory.size(), 1);
  if (!f.ranks.empty()) keep_ranks(table, f.ranks, keep, keep_memory);
  if (!f.name_pattern.empty()) keep_names(table, f.name_pattern, keep);
  // Windows come from the whole table (a range outside the listed ranks still has none).
  if (f.time_range) keep_in(table, time_windows(table, *f.time_range), keep, keep_memory);
  if (f.steps) keep_in(table, step_windows(table, *f.steps), keep, keep_memory);
  if (f.nvtx) keep_in(table, nvtx_windows(table, *f.nvtx), keep, keep_memory);
  table.keep(keep, keep_memory);
}

}  // namespace tracesweep
