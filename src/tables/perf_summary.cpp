// SPDX-License-Identifier: Apache-2.0
// Perf Summary (Paddle §1.13) from the steps and the data-loader ranges of each rank.
#include <tracesweep/tables/perf_summary.hpp>

#include <algorithm>

#include <tracesweep/stats.hpp>

namespace tracesweep {

namespace {

/// Per rank index, the union of its data-loader host ranges (the backend's union).
interval_union loader_union(trace_model const& model, backend& be) {
  auto const& t = model.table();
  std::vector<std::int64_t> s, e;
  std::vector<group_id> g;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::data_loader || t.device[i] >= 0) continue;
    s.push_back(t.start_ns[i]), e.push_back(t.end_ns[i]);
    g.push_back(static_cast<group_id>(model.rank_index(t.rank[i])));
  }
  return be.union_by_group({s, e, g});
}

/// |∪ of group `rank` in `u` ∩ [start, end)|.
std::int64_t covered(interval_union const& u, group_id rank, std::int64_t start, std::int64_t end) {
  auto it = std::lower_bound(u.group.begin(), u.group.end(), rank);
  std::int64_t total = 0;
  for (auto k = static_cast<std::size_t>(it - u.group.begin()); k < u.size() && u.group[k] == rank;
       ++k)
    total += std::max<std::int64_t>(0, std::min(end, u.end[k]) - std::max(start, u.start[k]));
  return total;
}

cost_summary summarize(std::vector<std::int64_t> const& v) {
  cost_summary c;
  std::int64_t total = 0;
  for (auto x : v) total = checked_add(total, x, "the total step time");
  c.avg_ns = double(total) / double(v.size());
  c.max_ns = *std::max_element(v.begin(), v.end());
  c.min_ns = *std::min_element(v.begin(), v.end());
  return c;
}

}  // namespace

std::vector<rank_perf> compute_perf_summary(trace_model const& model, backend& be) {
  auto const& t = model.table();
  auto const loaders = loader_union(model, be);
  std::vector<rank_perf> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto& o = out[r];
    o.rank = model.ranks()[r];
    auto const steps = model.steps(r);
    if (steps.empty()) continue;
    std::vector<std::int64_t> batch, reader;
    for (auto i : steps) {
      batch.push_back(t.end_ns[i] - t.start_ns[i]);
      reader.push_back(covered(loaders, static_cast<group_id>(r), t.start_ns[i], t.end_ns[i]));
    }
    o.steps = static_cast<std::int64_t>(steps.size());
    o.batch_cost = summarize(batch);
    o.reader_cost = summarize(reader);
    o.has_reader = o.reader_cost.max_ns > 0;
    o.ips_avg = o.batch_cost.avg_ns > 0 ? 1e9 / o.batch_cost.avg_ns : 0.0;
    o.ips_max = o.batch_cost.min_ns > 0 ? 1e9 / double(o.batch_cost.min_ns) : 0.0;
    o.ips_min = o.batch_cost.max_ns > 0 ? 1e9 / double(o.batch_cost.max_ns) : 0.0;
    o.reader_ratio = o.batch_cost.avg_ns > 0 ? o.reader_cost.avg_ns / o.batch_cost.avg_ns : 0.0;
  }
  return out;
}

}  // namespace tracesweep
