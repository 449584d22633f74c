// SPDX-License-Identifier: Apache-2.0
// Stragglers: each rank's mean step time and utilization (the mean busy share of its devices);
// a rank is a straggler when its mean step time exceeds the median rank's by more than
// straggler_threshold. Needs steps on at least two ranks; the median rank of an even count is the
// lower middle one, so of two ranks the slower is measured against the faster.
#include <algorithm>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

void find_stragglers(trace_model const& model, diagnosis& out) {
  auto const ranks = model.ranks();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto const rows = model.step_windows(r);
    if (rows.empty()) continue;
    rank_steps s;
    s.rank = ranks[r];
    s.steps = static_cast<std::int64_t>(rows.size());
    int128 total = 0;
    for (auto const& st : rows) total += st.end - st.start;
    s.mean_step_ns = static_cast<std::int64_t>(total / s.steps);
    double busy = 0;
    std::size_t devices = 0;
    for (auto const& v : out.verdicts)
      if (!v.step && v.where.rank == s.rank) busy += v.busy_share, ++devices;
    s.utilization = devices > 0 ? busy / static_cast<double>(devices) : 0.0;
    out.ranks.push_back(s);
  }
  if (out.ranks.size() < 2) return;
  std::vector<std::int64_t> means;
  for (auto const& s : out.ranks) means.push_back(s.mean_step_ns);
  std::sort(means.begin(), means.end());
  // The median rank is a rank: the lower middle one for an even count (of two ranks, the faster).
  std::int64_t const median = means[(means.size() - 1) / 2];
  if (median <= 0) return;
  for (auto const& s : out.ranks) {
    double const excess = static_cast<double>(s.mean_step_ns) / static_cast<double>(median) - 1.0;
    if (excess > out.options.straggler_threshold)
      out.stragglers.push_back({s.rank, s.mean_step_ns, median, excess});
  }
}

}  // namespace tracesweep::diagnose_detail
