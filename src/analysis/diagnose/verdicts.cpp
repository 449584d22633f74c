// SPDX-License-Identifier: Apache-2.0
// Verdicts per device and per (device, step): the busy share, the exposed communication and the
// idle time by cause decide, with the thresholds of diagnose_options (docs/diagnose.md).
#include <algorithm>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

std::int64_t at(idle_by_cause const& idle, idle_cause c) {
  return idle[static_cast<std::size_t>(c)];
}

void decide(verdict_row& v, std::int64_t busy, std::int64_t exposed, diagnose_options const& o) {
  std::int64_t const window = v.window_end_ns - v.window_start_ns;
  v.busy_share = share(busy, window);
  v.exposed_communication_share = share(exposed, window);
  if (window <= 0) {
    v.what = verdict::balanced;
    return;
  }
  using enum idle_cause;
  struct group {
    verdict what;
    std::int64_t ns;
  };
  group const groups[] = {
      {verdict::data_loading_bound, at(v.idle, data_loading)},
      {verdict::sync_bound, at(v.idle, sync) + at(v.idle, memcpy)},
      {verdict::communication_bound, at(v.idle, communication)},
      {verdict::cpu_bound,
       at(v.idle, host_compute) + at(v.idle, launch) + at(v.idle, unknown) + v.idle_short_ns},
  };
  auto const* top = std::max_element(std::begin(groups), std::end(groups),
                                     [](group const& a, group const& b) { return a.ns < b.ns; });
  // Exposed communication and, below the busy threshold, the largest idle group compete: the
  // larger share of the window that reaches its threshold decides.
  bool const comm = v.exposed_communication_share >= o.communication_threshold;
  double const idle_share = share(top->ns, window);
  bool const idle = v.busy_share < o.busy_threshold && idle_share >= o.idle_cause_threshold;
  if (comm && (!idle || v.exposed_communication_share >= idle_share))
    v.what = verdict::communication_bound;
  else if (idle)
    v.what = top->what;
  else
    v.what = v.busy_share >= o.busy_threshold ? verdict::gpu_bound : verdict::balanced;
}

/// Gaps of one device in start order.
std::vector<std::vector<attributed_gap const*>> gaps_by_device(std::span<attributed_gap const> gaps,
                                                               std::size_t devices) {
  std::vector<std::vector<attributed_gap const*>> out(devices);
  for (auto const& g : gaps) out[g.device].push_back(&g);
  for (auto& v : out)
    std::sort(v.begin(), v.end(),
              [](attributed_gap const* a, attributed_gap const* b) { return a->start < b->start; });
  return out;
}

void add_step_verdicts(trace_model const& model, std::size_t g, device_unions const& u,
                       std::vector<attributed_gap const*> const& gaps,
                       std::span<step_window const> steps, diagnosis& out) {
  auto const& t = model.table();
  for (std::size_t s = 0; s < steps.size(); ++s) {
    verdict_row v;
    v.where = key_of(model, g);
    v.step = static_cast<std::int32_t>(s);
    v.step_name = std::string(t.strings().at(steps[s].name));
    v.window_start_ns = steps[s].start;
    v.window_end_ns = steps[s].end;
    std::int64_t const lo = v.window_start_ns, hi = v.window_end_ns;
    std::int64_t const busy = u.busy.covered(lo, hi);
    std::int64_t examined = 0;
    // A device's gaps are holes of its union: disjoint and in start order, so in end order too;
    // those meeting the step lie from the first ending after its start.
    auto const first =
        std::upper_bound(gaps.begin(), gaps.end(), lo,
                         [](std::int64_t at, attributed_gap const* gp) { return at < gp->end; });
    for (auto it = first; it != gaps.end() && (*it)->start < hi; ++it) {
      auto const* gp = *it;
      std::int64_t const o = std::min(gp->end, hi) - std::max(gp->start, lo);
      if (o <= 0) continue;
      v.idle[static_cast<std::size_t>(gp->cause)] += o;
      examined += o;
    }
    v.idle_short_ns = std::max<std::int64_t>(0, (hi - lo) - busy - examined);
    // Communication not under computation: |kernels ∩ W| − |computation ∩ W|.
    decide(v, busy, u.kernels.covered(lo, hi) - u.computation.covered(lo, hi), out.options);
    out.verdicts.push_back(std::move(v));
  }
}

}  // namespace

void find_verdicts(trace_model const& model, std::span<device_unions const> unions,
                   activity_result const& activity, std::span<attributed_gap const> gaps,
                   std::span<std::optional<host_index::key> const> threads, diagnosis& out) {
  std::size_t const devices = activity.devices.size();
  auto const by_device = gaps_by_device(gaps, devices);
  for (std::size_t g = 0; g < devices; ++g) {
    auto const& a = activity.devices[g];
    verdict_row v;
    v.where = key_of(model, g);
    v.window_start_ns = a.window_start;
    v.window_end_ns = a.window_end;
    std::int64_t examined = 0;
    for (auto const* gp : by_device[g]) {
      v.idle[static_cast<std::size_t>(gp->cause)] += gp->end - gp->start;
      examined += gp->end - gp->start;
    }
    v.idle_short_ns =
        std::max<std::int64_t>(0, (a.window_end - a.window_start) - a.busy - examined);
    decide(v, a.busy, a.communication - a.overlap, out.options);
    out.verdicts.push_back(std::move(v));
  }
  for (std::size_t g = 0; g < devices; ++g) {
    auto const r = model.rank_index(model.devices()[g].rank);
    if (r >= model.ranks().size() || model.step_windows(r).empty()) continue;
    // The steps of the thread that launches the device's work, else the rank's.
    auto const own = threads[g] ? model.thread_step_windows(threads[g]->first, threads[g]->second)
                                : std::span<step_window const>{};
    auto const windows = !own.empty() ? own : model.step_windows(r);
    add_step_verdicts(model, g, unions[g], by_device[g], windows, out);
  }
}

}  // namespace tracesweep::diagnose_detail
