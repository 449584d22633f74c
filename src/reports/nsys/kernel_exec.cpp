// SPDX-License-Identifier: Apache-2.0
// cuda_kern_exec_trace / _sum: kernels joined to their launching calls through the model's launch
// links; the summary's four phase statistics per group from the backend's segmented statistics.
#include <tracesweep/reports/nsys/kernel_exec.hpp>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/reports/nsys/stats_reports.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "reports/nsys/launch_details.hpp"

namespace tracesweep {

namespace {

/// The kernels with a launching call, per output table, each table by (call start, kernel
/// start, row).
std::vector<std::vector<kernel_launch>> launched_kernels(trace_model const& model, bool merge) {
  auto const& t = model.table();
  std::vector<std::vector<kernel_launch>> out(merge ? 1 : t.inputs().size());
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == event_kind::kernel && t.device[i] >= 0 && model.launcher(i) >= 0)
      out[merge ? 0 : static_cast<std::size_t>(t.input_of(i))].push_back(
          {i, static_cast<std::size_t>(model.launcher(i))});
  for (auto& rows : out)
    std::sort(rows.begin(), rows.end(), [&](kernel_launch const& a, kernel_launch const& b) {
      return std::tuple(t.start_ns[a.call], t.start_ns[a.kernel], a.kernel) <
             std::tuple(t.start_ns[b.call], t.start_ns[b.kernel], b.kernel);
    });
  return out;
}

phase_stats phase_of(exact_stats const& s) {
  auto const d = derive_stats(s, {});
  return {d.mean, d.median, d.stddev, s.min, s.max};
}

/// Exact statistics of `values` by group key, indexed by key (absent keys: count 0).
std::vector<exact_stats> by_key(backend& be, std::vector<std::uint32_t> const& keys,
                                std::vector<std::int64_t> const& values, std::size_t groups) {
  std::vector<exact_stats> out(groups);
  if (keys.empty()) return out;
  for (auto& s : be.segmented_stats(keys, values, {})) out[s.key] = s;
  return out;
}

std::string source_of(event_table const& t, std::size_t g, bool merge) {
  return merge ? std::string("all inputs") : t.inputs()[g].path;
}

}  // namespace

kernel_exec_row kernel_exec_row_of(event_table const& t, kernel_launch launch) {
  auto const [k, c] = launch;
  kernel_exec_row r;
  r.api_start = t.start_ns[c];
  r.api_duration = t.end_ns[c] - t.start_ns[c];
  if (t.start_ns[k] > t.end_ns[c])
    r.queue_start = t.end_ns[c], r.queue_duration = t.start_ns[k] - t.end_ns[c];
  r.kernel_start = t.start_ns[k];
  r.kernel_duration = t.end_ns[k] - t.start_ns[k];
  r.total_duration = t.end_ns[k] - t.start_ns[c];
  r.pid = t.process_id_of(k);
  r.tid = t.stream[c];
  r.device = t.device[k];
  r.api_name = std::string(strip_api_version(t.strings().at(t.name[c])));
  if (auto const* d = t.launch_details.details_of(k))
    r.grid = stats::launch_dimensions(d->grid), r.block = stats::launch_dimensions(d->block);
  r.kernel_name = std::string(t.strings().at(t.name[k]));
  return r;
}

kernel_exec_traces compute_kernel_exec_trace(trace_model const& model, bool merge) {
  auto const& t = model.table();
  auto tables = launched_kernels(model, merge);
  kernel_exec_traces out{&t, std::vector<kernel_exec_trace>(tables.size())};
  for (std::size_t g = 0; g < tables.size(); ++g)
    out.tables[g] = {source_of(t, g, merge), std::move(tables[g])};
  return out;
}

std::vector<kernel_exec_summary> compute_kernel_exec_sum(trace_model const& model, backend& be,
                                                         bool merge) {
  auto const& t = model.table();
  auto const tables = launched_kernels(model, merge);
  std::vector<kernel_exec_summary> out(tables.size());
  for (std::size_t g = 0; g < tables.size(); ++g) {
    out[g].source = source_of(t, g, merge);
    using group_key =
        std::tuple<std::int64_t, std::int64_t, std::int32_t, std::string, std::string>;
    std::map<group_key, std::uint32_t> ids;
    std::vector<std::uint32_t> keys, queue_keys;
    std::vector<std::int64_t> total, api, kernel, queue;
    for (auto const launch : tables[g]) {
      auto const r = kernel_exec_row_of(t, launch);
      auto const [it, fresh] =
          ids.try_emplace(group_key{r.pid, r.tid, r.device, r.api_name, r.kernel_name},
                          static_cast<std::uint32_t>(ids.size()));
      keys.push_back(it->second);
      total.push_back(r.total_duration), api.push_back(r.api_duration);
      kernel.push_back(r.kernel_duration);
      if (r.queue_duration) queue_keys.push_back(it->second), queue.push_back(*r.queue_duration);
    }
    auto const n = ids.size();
    auto const ts = by_key(be, keys, total, n), as = by_key(be, keys, api, n);
    auto const ks = by_key(be, keys, kernel, n), qs = by_key(be, queue_keys, queue, n);
    for (auto const& [key, id] : ids) {  // map order: (PID, TID, device, API, kernel)
      kernel_exec_group grp;
      std::tie(grp.pid, grp.tid, grp.device, grp.api_name, grp.kernel_name) = key;
      grp.count = static_cast<std::int64_t>(ts[id].count);
      grp.queued = static_cast<std::int64_t>(qs[id].count);
      grp.total = phase_of(ts[id]), grp.api = phase_of(as[id]), grp.kernel = phase_of(ks[id]);
      if (grp.queued > 0) grp.queue = phase_of(qs[id]);
      out[g].rows.push_back(std::move(grp));
    }
  }
  return out;
}

}  // namespace tracesweep
