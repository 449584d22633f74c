// SPDX-License-Identifier: Apache-2.0
// Device Summary (Paddle §1.5): kernel unions per (rank, device) by the backend, over the rank's
// denominator; CPU utilizations as the input recorded them.
#include <tracesweep/tables/device_summary.hpp>

#include <map>

namespace tracesweep {

std::vector<rank_device_summary> compute_device_summary(trace_model const& model, backend& be) {
  auto const& t = model.table();
  std::map<std::pair<std::size_t, std::int32_t>, group_id> groups;  // (rank index, device)
  std::vector<std::int64_t> s, e;
  std::vector<group_id> g;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || !model.kept(i)) continue;
    auto const key = std::pair(model.rank_index(t.rank[i]), t.device[i]);
    auto const [it, fresh] = groups.emplace(key, static_cast<group_id>(groups.size()));
    s.push_back(t.start_ns[i]), e.push_back(t.end_ns[i]), g.push_back(it->second);
  }
  auto const busy = busy_per_group(be.union_by_group({s, e, g}), groups.size());

  std::vector<rank_device_summary> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto const d = model.rank_denominator(r);
    out[r].rank = model.ranks()[r];
    out[r].total_ns = d.total_ns;
    out[r].total_from = d.from_steps ? "steps" : "span";
  }
  for (auto const& info : t.inputs()) {
    for (auto rank : info.ranks) {
      auto const r = model.rank_index(rank);
      if (r >= out.size()) continue;
      auto& o = out[r];
      if (!o.process_cpu) o.process_cpu = info.process_cpu_utilization;
      if (!o.system_cpu) o.system_cpu = info.system_cpu_utilization;
    }
  }
  for (auto const& [key, id] : groups) {
    auto& o = out[key.first];
    double const u = o.total_ns > 0 ? static_cast<double>(busy[id]) / double(o.total_ns) : 0.0;
    o.gpus.push_back({key.second, busy[id], u});
  }
  return out;
}

}  // namespace tracesweep
