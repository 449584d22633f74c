// SPDX-License-Identifier: Apache-2.0
// Late arrivals at collectives (docs/diagnose.md): from the instances matched across ranks
// (collectives.hpp), each rank that alone arrived last at some of them, with the wait it caused
// the others there. At its costliest such instance: what its launching thread did while the
// others waited (the host rows between the first participant's arrival and its own), and which
// host rows it spent longer in than the others between each one's previous collective and its
// arrival there.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Each rank's costliest late arrival (the first by row among equals).
std::map<std::int32_t, late_instance const*> costliest(trace_model const& model,
                                                       collective_matching const& matching) {
  auto const groups = model.device_group();
  auto const devices = model.devices();
  std::map<std::int32_t, late_instance const*> worst;
  for (auto const& l : matching.late) {
    auto& w = worst[devices[groups[l.row]].rank];
    if (w == nullptr || l.wait_caused_ns > w->wait_caused_ns) w = &l;
  }
  return worst;
}

/// A participant's window before an instance: from its previous collective's end (for its first
/// collective, the start of its step in progress, else of its device's first row) to its
/// arrival, on its launching thread.
struct before_arrival {
  host_index::key thread;
  std::int64_t from = 0, to = 0;
};

std::int64_t first_window_start(trace_model const& model, device_rows const& order,
                                std::size_t row) {
  auto const& t = model.table();
  auto const device = model.device_group()[row];
  if (auto const r = model.rank_index(model.devices()[device].rank); r < model.ranks().size()) {
    auto const steps = model.step_windows(r);
    if (auto const s = step_at(steps, t.start_ns[row]); s >= 0)
      return steps[static_cast<std::size_t>(s)].start;
  }
  auto const rows = order.of(device);
  return rows.empty() ? t.start_ns[row] : t.start_ns[rows.front()];
}

std::optional<before_arrival> window_of(trace_model const& model, device_rows const& order,
                                        instance_member const& m) {
  auto const thread = launching_thread(model, static_cast<std::int64_t>(m.row));
  if (!thread) return std::nullopt;
  auto const arrival = model.table().start_ns[m.row];
  auto const from = m.since_ns == std::numeric_limits<std::int64_t>::min()
                        ? first_window_start(model, order, m.row)
                        : m.since_ns;
  return before_arrival{*thread, std::min(from, arrival), arrival};
}

/// The windows of every participant of `l`'s instance, the late one first.
std::vector<before_arrival> windows_of(trace_model const& model, device_rows const& order,
                                       collective_matching const& matching,
                                       late_instance const& l) {
  std::vector<before_arrival> out;
  auto const first = matching.instance_offsets[l.instance];
  auto const last = matching.instance_offsets[l.instance + 1];
  auto const late = std::find_if(matching.members.begin() + static_cast<std::ptrdiff_t>(first),
                                 matching.members.begin() + static_cast<std::ptrdiff_t>(last),
                                 [&](instance_member const& m) { return m.row == l.row; });
  auto const own = window_of(model, order, *late);
  if (!own) return out;  // nothing to compare without the late rank's host
  out.push_back(*own);
  for (auto i = first; i < last; ++i)
    if (matching.members[i].row != l.row)
      if (auto const w = window_of(model, order, matching.members[i])) out.push_back(*w);
  return out;
}

/// Host time per name in `w`.
std::map<string_id, std::int64_t> time_by_name(trace_model const& model, host_index const& index,
                                               before_arrival const& w) {
  std::map<string_id, std::int64_t> out;
  for (auto const& [ns, row] : attribute(model, index, std::span(&w.thread, 1), w.from, w.to).rows)
    out[model.table().name[row]] += ns;
  return out;
}

/// The names the late participant (windows[0]) spent longer in than the others' median.
std::vector<host_excess> behind_of(trace_model const& model, host_index const& index,
                                   std::span<before_arrival const> windows, std::size_t top) {
  if (windows.size() < 2) return {};
  auto const late = time_by_name(model, index, windows.front());
  std::vector<std::map<string_id, std::int64_t>> others;
  for (auto const& w : windows.subspan(1)) others.push_back(time_by_name(model, index, w));
  std::vector<host_excess> out;
  for (auto const& [name, ns] : late) {
    std::vector<std::int64_t> times;
    for (auto const& o : others) times.push_back(o.contains(name) ? o.at(name) : 0);
    auto const mid = times.begin() + static_cast<std::ptrdiff_t>((times.size() - 1) / 2);
    std::nth_element(times.begin(), mid, times.end());  // the lower median, a participant's own
    if (ns > *mid) out.push_back({std::string(model.table().strings().at(name)), ns, *mid});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](auto const& a, auto const& b) { return a.excess_ns() > b.excess_ns(); });
  if (out.size() > top) out.resize(top);
  return out;
}

/// The worst instance's part of `f`: where, which kernel, when, the host meanwhile and before.
void describe_worst(trace_model const& model, host_index const& index, late_instance const& l,
                    std::span<before_arrival const> windows, std::size_t host_events,
                    late_arrival_finding& f) {
  auto const& t = model.table();
  f.where = key_of(model, model.device_group()[l.row]);
  f.name = std::string(t.strings().at(t.name[l.row]));
  f.first_arrival_ns = l.first_arrival_ns;
  f.arrival_ns = t.start_ns[l.row];
  f.worst_wait_caused_ns = l.wait_caused_ns;
  f.launched_by = launching_op_name(model, index, l.row);
  f.host =
      launching_thread_rows(model, index, l.row, f.first_arrival_ns, f.arrival_ns, host_events);
  f.behind = behind_of(model, index, windows, host_events);
}

}  // namespace

void find_late_arrivals(trace_model const& model, device_rows const& order,
                        host_classifier const& classifier, collective_matching const& matching,
                        diagnosis& out) {
  if (!matching.across_ranks()) return;
  auto const& t = model.table();
  auto const worst = costliest(model, matching);
  std::map<std::int32_t, std::vector<before_arrival>> windows;
  std::vector<host_index::query> queries;
  for (auto const& [rank, l] : worst) {
    auto const& w = windows[rank] = windows_of(model, order, matching, *l);
    for (auto const& b : w) queries.push_back({b.thread, b.from, b.to});
    auto const k = launching_thread(model, static_cast<std::int64_t>(l->row));
    if (!k) continue;
    auto const call = static_cast<std::size_t>(model.launcher(l->row));
    queries.push_back({*k, l->first_arrival_ns, t.start_ns[l->row]});
    queries.push_back({*k, t.start_ns[call], t.end_ns[call] + 1});
  }
  host_index const index(model, classifier, std::move(queries));
  for (auto const& r : matching.ranks) {
    if (r.last_arrivals == 0) continue;
    late_arrival_finding f;
    f.rank = r.rank;
    f.collectives = r.matched;
    f.last_arrivals = r.last_arrivals;
    f.wait_caused_ns = r.wait_caused_ns;
    describe_worst(model, index, *worst.at(r.rank), windows.at(r.rank), out.options.host_events, f);
    out.late_arrivals.push_back(std::move(f));
  }
  std::stable_sort(
      out.late_arrivals.begin(), out.late_arrivals.end(),
      [](auto const& a, auto const& b) { return a.wait_caused_ns > b.wait_caused_ns; });
}

}  // namespace tracesweep::diagnose_detail
