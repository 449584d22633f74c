// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/gpu_operations.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace tracesweep::stats {

std::vector<device_operations> gpu_operations(trace_model const& model) {
  auto const& t = model.table();
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, device_operations> groups;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_device_activity(t.kind[i]) || t.device[i] < 0 || t.start_ns[i] <= 0) continue;
    auto& g = groups[{t.input_of(i), t.rank[i], t.device[i]}];
    g.start.push_back(t.start_ns[i]);
    g.end.push_back(t.end_ns[i]);
  }
  std::vector<device_operations> out;
  for (auto& [key, g] : groups) {
    std::tie(g.input, g.rank, g.device) = key;
    g.first = *std::min_element(g.start.begin(), g.start.end());
    g.last = *std::max_element(g.end.begin(), g.end.end());
    auto const& info = t.inputs()[static_cast<std::size_t>(g.input)];
    g.pid = info.process_id(g.rank);
    if (auto const c = info.gpu_contexts.find({g.rank, g.device});
        c != info.gpu_contexts.end() && c->second.size() == 1)
      g.context = c->second.front();
    for (auto const& o : info.profiler_overhead)
      if (o.rank == g.rank && o.start_ns > g.first && o.end_ns < g.last) {
        g.start.push_back(o.start_ns);
        g.end.push_back(o.end_ns);
      }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::int32_t> recipe_ranks(event_table const& table) {
  auto const& inputs = table.inputs();
  std::vector<std::size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return inputs[a].path < inputs[b].path; });
  std::vector<std::int32_t> rank(inputs.size());
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<std::int32_t>(k);
  return rank;
}

}  // namespace tracesweep::stats
