// SPDX-License-Identifier: Apache-2.0
// The TensorBoard overview's GPU part: GPU Utilization from the session's kernel unions per
// (input, device), Est. SM Efficiency (a sweep of blocks-per-SM sums, each segment capped at 1),
// Est. Achieved Occupancy (duration-weighted), and the kernel table.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/tensorboard/tb_parts.hpp"

namespace tracesweep::tables::tb {

namespace {

/// Est. SM efficiency of the kernels of one GPU over `window`: whether any carries blocks per SM,
/// and the efficiency when some of them ran inside the window.
struct sm_estimate {
  bool has_blocks_per_sm = false;
  std::optional<double> efficiency;
};

sm_estimate sm_efficiency(event_table const& table, std::span<std::size_t const> kernels,
                          launch_metric_index const& metrics, span window) {
  struct endpoint {
    std::int64_t time;
    int type;  // 0 start, 1 end
    double value;
  };
  std::vector<endpoint> eps;
  for (auto i : kernels) {
    auto const m = metrics.find(i);
    if (m == metrics.end()) continue;
    double const bps = table.launch_metrics.blocks_per_sm[m->second];
    if (bps > 0.0) {
      eps.push_back({table.start_ns[i], 0, bps});
      eps.push_back({table.end_ns[i], 1, bps});
    }
  }
  if (eps.empty()) return {};
  std::stable_sort(eps.begin(), eps.end(), [](endpoint const& a, endpoint const& b) {
    return a.time != b.time ? a.time < b.time : a.type < b.type;
  });
  double weighted = 0;
  bool any = false;
  std::int64_t last_t = eps[0].time;
  double last_v = eps[0].value;
  for (std::size_t k = 1; k < eps.size(); ++k) {
    auto const& ep = eps[k];
    if (ep.time > last_t && last_v > 0.0) {
      auto const a = std::max(last_t, window.start), b = std::min(ep.time, window.end);
      if (a < b)
        weighted += std::min(last_v, 1.0) * (static_cast<double>(b - a) / 1000.0), any = true;
    }
    last_t = ep.time;
    last_v += ep.type == 0 ? ep.value : -ep.value;
  }
  if (!any) return {true, std::nullopt};
  return {true, weighted / (static_cast<double>(window.end - window.start) / 1000.0)};
}

/// Duration-weighted occupancy over `window` of the kernels of one GPU that carry one: the
/// mean (none when no time), and whether any kernel carries one.
std::pair<std::optional<double>, bool> occupancy(event_table const& table,
                                                 std::span<std::size_t const> kernels,
                                                 launch_metric_index const& metrics, span window) {
  double sum = 0, time = 0;
  bool any = false;
  for (auto i : kernels) {
    auto const m = metrics.find(i);
    if (m == metrics.end()) continue;
    double const occ = table.launch_metrics.est_occupancy_pct[m->second];
    if (!(occ >= 0.0)) continue;  // absent (negative) or NaN
    any = true;
    auto const a = std::max(table.start_ns[i], window.start);
    auto const b = std::min(table.end_ns[i], window.end);
    if (a < b) {
      auto const d = static_cast<double>(b - a) / 1000.0;
      sum += occ * d, time += d;
    }
  }
  return {time > 0 ? std::optional(sum / time) : std::nullopt, any};
}

}  // namespace

launch_metric_index index_launch_metrics(event_table const& t) {
  launch_metric_index out;
  for (std::size_t j = 0; j < t.launch_metrics.size(); ++j) out[t.launch_metrics.row[j]] = j;
  return out;
}

void add_gpu_metrics(job_session const& session, std::size_t input,
                     std::span<std::size_t const> kernels, launch_metric_index const& metrics,
                     span window, tb_overview& ov) {
  auto const& table = session.model().table();
  // The input's GPUs: a run of the session's (input, device) groups, kernels' unions per GPU.
  auto const& gpu_busy = session.unions(table_union::kernels_by_input_device);
  auto const gpus = session.input_devices();
  constexpr auto lowest = std::numeric_limits<std::int32_t>::min();
  auto const first = std::lower_bound(gpus.begin(), gpus.end(), table_device{input, lowest});
  auto const last = std::lower_bound(gpus.begin(), gpus.end(), table_device{input + 1, lowest});
  auto const length = static_cast<double>(window.end - window.start);
  for (auto it = first; it != last; ++it) {
    auto const group = static_cast<group_id>(it - gpus.begin());
    std::vector<std::size_t> own;
    for (auto i : kernels)
      if (table.device[i] == it->device) own.push_back(i);
    tb_gpu gm;
    gm.device = it->device;
    gm.utilization =
        length > 0
            ? static_cast<double>(members_of(gpu_busy, group).covered(window.start, window.end)) /
                  length
            : 0;
    auto const sm = sm_efficiency(table, own, metrics, window);
    ov.has_blocks_per_sm = ov.has_blocks_per_sm || sm.has_blocks_per_sm;
    gm.sm_efficiency = sm.efficiency;
    auto const [occ, any_occ] = occupancy(table, own, metrics, window);
    ov.has_occupancy = ov.has_occupancy || any_occ;
    gm.occupancy_pct = occ;
    ov.gpus.push_back(gm);
  }
}

void add_kernel_table(trace_model const& model, std::span<std::size_t const> kernels,
                      std::span<kernel_name_stats const> stats, launch_metric_index const& metrics,
                      tb_overview& ov) {
  auto const& table = model.table();
  std::unordered_map<string_id, std::array<double, 3>> weighted;  // Σ bps·w, Σ occ·w, Σ w
  for (auto i : kernels) {
    double bps = 0, occ = 0;
    if (auto m = metrics.find(i); m != metrics.end()) {
      bps = table.launch_metrics.blocks_per_sm[m->second];
      occ = table.launch_metrics.est_occupancy_pct[m->second];
      if (std::isnan(bps)) bps = 0;
      if (std::isnan(occ)) occ = 0;
    }
    auto const w = static_cast<double>(table.end_ns[i] - table.start_ns[i]) / 1000.0;
    auto& acc = weighted[table.name[i]];
    acc[0] += bps * w, acc[1] += occ * w, acc[2] += w;
  }
  for (auto const& k : stats) {
    auto const& s = k.stats;
    auto const& acc = weighted.at(k.name);
    tb_kernel kr;
    kr.name = std::string(table.strings().at(k.name));
    kr.calls = static_cast<std::int64_t>(s.count);
    kr.total_ns = narrow_sum(s.sum, "the total time of kernel " + kr.name);
    kr.max_ns = s.max, kr.min_ns = s.min;
    kr.mean_ns = static_cast<double>(kr.total_ns) / static_cast<double>(kr.calls);
    kr.blocks_per_sm = acc[2] > 0 ? acc[0] / acc[2] : 0;
    kr.occupancy_pct = acc[2] > 0 ? acc[1] / acc[2] : 0;
    ov.kernels.push_back(std::move(kr));
  }
  std::stable_sort(ov.kernels.begin(), ov.kernels.end(),
                   [](tb_kernel const& a, tb_kernel const& b) {
                     return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
                   });
}

}  // namespace tracesweep::tables::tb
