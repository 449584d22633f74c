// SPDX-License-Identifier: Apache-2.0
// Periodic gaps (the comb pattern): per device and cause, the gaps in start order form a comb when
// there are at least periodic_min_count of them and either at least 80 % of their start-to-start
// intervals lie within ± periodic_tolerance of the median interval (the period), or the rank has
// steps, at least 75 % of its steps hold the middle of one of these gaps and there are at most as
// many gaps as steps and one (once per step, even when some steps run longer than others).
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

std::int64_t median(std::vector<std::int64_t> v) {
  auto const mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  auto const lower = *std::max_element(v.begin(), mid);
  return lower + (*mid - lower) / 2;
}

}  // namespace

namespace {

/// Whether at least 75 % of `steps` hold the middle of a gap of `list`, and there are not more
/// gaps than steps and one.
bool once_per_step(std::span<step_window const> steps,
                   std::vector<attributed_gap const*> const& list) {
  if (steps.size() < 3 || list.size() > steps.size() + 1) return false;
  std::vector<bool> hit(steps.size(), false);
  for (auto const* g : list)
    if (auto const s = step_at(steps, g->start + (g->end - g->start) / 2); s >= 0)
      hit[static_cast<std::size_t>(s)] = true;
  auto const n = std::count(hit.begin(), hit.end(), true);
  return 4 * static_cast<std::size_t>(n) >= 3 * steps.size();
}

}  // namespace

void find_periodic_gaps(trace_model const& model, activity_result const& activity,
                        std::span<attributed_gap const> gaps, diagnosis& out) {
  auto const& o = out.options;
  std::map<std::pair<group_id, idle_cause>, std::vector<attributed_gap const*>> series;
  for (auto const& g : gaps) series[{g.device, g.cause}].push_back(&g);
  for (auto& [key, list] : series) {
    if (list.size() < std::max<std::size_t>(o.periodic_min_count, 2)) continue;
    std::sort(list.begin(), list.end(),
              [](attributed_gap const* a, attributed_gap const* b) { return a->start < b->start; });
    std::vector<std::int64_t> intervals;
    for (std::size_t k = 1; k < list.size(); ++k)
      intervals.push_back(list[k]->start - list[k - 1]->start);
    std::int64_t const period = median(intervals);
    if (period <= 0) continue;
    auto const regular = std::count_if(intervals.begin(), intervals.end(), [&](std::int64_t d) {
      return std::abs(static_cast<double>(d - period)) <= o.periodic_tolerance * double(period);
    });
    auto const r = model.rank_index(model.devices()[key.first].rank);
    bool const per_step = r < model.ranks().size() && once_per_step(model.step_windows(r), list);
    if (static_cast<double>(regular) < 0.8 * static_cast<double>(intervals.size()) && !per_step)
      continue;
    periodic_gap_finding f;
    f.where = key_of(model, key.first);
    f.period_ns = period;
    f.count = static_cast<std::int64_t>(list.size());
    for (auto const* g : list) f.total_ns += g->end - g->start;
    auto const& a = activity.devices[key.first];
    std::int64_t const window = a.window_end - a.window_start;
    f.share = share(f.total_ns, window);
    f.cause = key.second;
    f.first_start_ns = list.front()->start;
    out.periodic_gaps.push_back(f);
  }
  std::sort(out.periodic_gaps.begin(), out.periodic_gaps.end(),
            [](periodic_gap_finding const& a, periodic_gap_finding const& b) {
              if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
              return std::tie(a.where.input, a.where.rank, a.where.device, a.cause) <
                     std::tie(b.where.input, b.where.rank, b.where.device, b.cause);
            });
}

}  // namespace tracesweep::diagnose_detail
