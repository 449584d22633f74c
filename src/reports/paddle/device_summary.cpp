// SPDX-License-Identifier: Apache-2.0
// Device Summary (Paddle §1.5): the session's kept-kernel unions per (rank, device), over the
// rank's denominator; CPU utilizations as the input recorded them.
#include <tracesweep/reports/paddle/device_summary.hpp>

namespace tracesweep {

std::vector<rank_device_summary> compute_device_summary(job_session const& session) {
  auto const& model = session.model();
  auto const& t = model.table();
  auto const gpus = session.rank_devices();
  auto const busy =
      busy_per_group(session.unions(table_union::kept_kernels_by_rank_device), gpus.size());

  std::vector<rank_device_summary> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto const d = session.rank_denominator(r);
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
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    auto& o = out[gpus[k].owner];
    double const u = o.total_ns > 0 ? static_cast<double>(busy[k]) / double(o.total_ns) : 0.0;
    o.gpus.push_back({gpus[k].device, busy[k], u});
  }
  return out;
}

}  // namespace tracesweep
