// SPDX-License-Identifier: Apache-2.0
// Long-tail kernels: instances longer than long_tail_factor × the median of their name (the
// backend's exact per-name statistics), for names with at least long_tail_min_count instances;
// each with the op that launched it and what its launching thread was doing meanwhile.
#include <algorithm>
#include <map>
#include <tracesweep/exact_stats.hpp>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

void find_long_tail(trace_model const& model, activity_result const& activity,
                    host_classifier const& classifier, diagnosis& out) {
  auto const& t = model.table();
  auto const& o = out.options;
  // Per name id: the threshold above which an instance is in the tail (0: name not eligible).
  std::vector<double> median(t.strings().size(), 0.0);
  for (auto const& s : activity.kernels)
    if (s.count >= o.long_tail_min_count) median[s.key] = derive_stats(s, {}).median;
  struct instance {
    std::size_t row;
    double ratio;
  };
  std::vector<instance> found;
  auto const groups = model.device_group();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == no_device || t.kind[i] != event_kind::kernel) continue;
    double const m = median[t.name[i]];
    auto const d = static_cast<double>(t.end_ns[i] - t.start_ns[i]);
    if (m > 0 && d > o.long_tail_factor * m) found.push_back({i, d / m});
  }
  std::sort(found.begin(), found.end(), [&](instance const& a, instance const& b) {
    if (a.ratio != b.ratio) return a.ratio > b.ratio;
    return a.row < b.row;
  });
  out.long_tail_total = static_cast<std::int64_t>(found.size());
  std::map<string_id, long_tail_name> names;
  for (auto const& f : found) {
    auto& n = names[t.name[f.row]];
    ++n.instances;
    n.median_ns = median[t.name[f.row]];
    n.excess_ns = checked_add(
        n.excess_ns, t.end_ns[f.row] - t.start_ns[f.row] - static_cast<std::int64_t>(n.median_ns),
        "the long-tail excess of a kernel");
    n.worst_ratio = std::max(n.worst_ratio, f.ratio);
  }
  for (auto& [id, n] : names) {
    n.name = std::string(t.strings().at(id));
    out.long_tail_names.push_back(std::move(n));
  }
  std::stable_sort(out.long_tail_names.begin(), out.long_tail_names.end(),
                   [](auto const& a, auto const& b) { return a.excess_ns > b.excess_ns; });
  if (o.top != 0 && found.size() > o.top) found.resize(o.top);

  // The host rows around each instance and around its launch call.
  std::vector<host_index::query> windows;
  for (auto const& f : found) {
    auto const k = launching_thread(model, static_cast<std::int64_t>(f.row));
    if (!k) continue;
    auto const call = static_cast<std::size_t>(model.launcher(f.row));
    windows.push_back({*k, t.start_ns[f.row], t.end_ns[f.row]});
    windows.push_back({*k, t.start_ns[call], t.end_ns[call] + 1});
  }
  host_index const index(model, classifier, std::move(windows));
  for (auto const& f : found) {
    long_tail_finding l;
    l.where = key_of(model, groups[f.row]);
    l.name = std::string(t.strings().at(t.name[f.row]));
    l.start_ns = t.start_ns[f.row];
    l.duration_ns = t.end_ns[f.row] - t.start_ns[f.row];
    l.median_ns = median[t.name[f.row]];
    auto const call = model.launcher(f.row);
    if (call >= 0) {
      auto const op = enclosing_op(model, index, static_cast<std::size_t>(call), false);
      if (op >= 0)
        l.launched_by = std::string(t.strings().at(t.name[static_cast<std::size_t>(op)]));
    }
    if (auto k = launching_thread(model, static_cast<std::int64_t>(f.row))) {
      auto const w =
          attribute(model, index, std::span(&*k, 1), l.start_ns, l.start_ns + l.duration_ns);
      for (std::size_t h = 0; h < w.rows.size() && h < o.host_events; ++h)
        l.host.push_back(describe(model, w.rows[h].second));
    }
    out.long_tail.push_back(std::move(l));
  }
}

}  // namespace tracesweep::diagnose_detail
