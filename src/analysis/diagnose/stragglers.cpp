// SPDX-License-Identifier: Apache-2.0
// Stragglers: each rank's mean step time, its collectives' mean wait for later ranks per step
// and its utilization (the mean busy share of its devices); a rank is a straggler when both its
// step time and its step time less that wait exceed the median rank's by more than
// straggler_threshold, so a rank whose steps are long only because it waits for the others is
// none. Needs steps on at least two ranks; the median rank of an even count is the lower middle
// one, so of two ranks the slower is measured against the faster.
#include <algorithm>
#include <functional>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Σ the wait of each rank's matched collectives that start inside one of its steps, by rank
/// index.
std::vector<std::int64_t> waits_in_steps(trace_model const& model,
                                         collective_matching const& matching) {
  auto const& t = model.table();
  auto const ranks = model.ranks();
  auto const groups = model.device_group();
  auto const devices = model.devices();
  std::vector<std::int64_t> out(ranks.size(), 0);
  for (auto const& k : matching.kernels) {
    if (k.wait_ns == 0) continue;
    auto const r = model.rank_index(devices[groups[k.row]].rank);
    if (r >= ranks.size() || step_at(model.step_windows(r), t.start_ns[k.row]) < 0) continue;
    out[r] = checked_add(out[r], k.wait_ns, "a rank's collective wait in its steps");
  }
  return out;
}

/// The median rank's value of `of`: a rank's, the lower middle one for an even count (of two
/// ranks, the faster).
template <class Of>
std::int64_t median_rank(std::vector<rank_steps> const& ranks, Of of) {
  std::vector<std::int64_t> v;
  for (auto const& s : ranks) v.push_back(std::invoke(of, s));
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

}  // namespace

void find_stragglers(trace_model const& model, collective_matching const& matching,
                     diagnosis& out) {
  auto const ranks = model.ranks();
  auto const waits = waits_in_steps(model, matching);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto const rows = model.step_windows(r);
    if (rows.empty()) continue;
    rank_steps s;
    s.rank = ranks[r];
    s.steps = static_cast<std::int64_t>(rows.size());
    int128 total = 0;
    for (auto const& st : rows) total += st.end - st.start;
    s.mean_step_ns = static_cast<std::int64_t>(total / s.steps);
    s.mean_wait_ns = waits[r] / s.steps;
    double busy = 0;
    std::size_t devices = 0;
    for (auto const& v : out.verdicts)
      if (!v.step && v.where.rank == s.rank) busy += v.busy_share, ++devices;
    s.utilization = devices > 0 ? busy / static_cast<double>(devices) : 0.0;
    out.ranks.push_back(s);
  }
  if (out.ranks.size() < 2) return;
  auto const median_step = median_rank(out.ranks, &rank_steps::mean_step_ns);
  auto const median_work = median_rank(out.ranks, [](auto const& s) { return s.mean_work_ns(); });
  if (median_step <= 0 || median_work <= 0) return;
  auto const over = [](std::int64_t v, std::int64_t median) {
    return static_cast<double>(v) / static_cast<double>(median) - 1.0;
  };
  for (auto const& s : out.ranks) {
    double const excess = over(s.mean_step_ns, median_step);
    double const work_excess = over(s.mean_work_ns(), median_work);
    auto const threshold = out.options.straggler_threshold;
    if (excess > threshold && work_excess > threshold)
      out.stragglers.push_back(
          {s.rank, s.mean_step_ns, median_step, excess, s.mean_wait_ns, work_excess});
  }
}

}  // namespace tracesweep::diagnose_detail
