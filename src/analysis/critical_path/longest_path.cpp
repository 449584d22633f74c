// SPDX-License-Identifier: Apache-2.0
// The longest path of the critical-path graph, found as networkx's dag_longest_path finds it so
// that ties resolve as HTA's do: nodes in topological generations (the sources in node order,
// then each generation's successors in edge order), each node's first best predecessor in edge
// order, the path ending at the first farthest node in that order.
#include <algorithm>

#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep::critical_path_detail {

namespace {

template <class End>
edge_groups group_edges(path_graph const& g, End end) {
  edge_groups a;
  a.offsets.assign(g.nodes.size() + 1, 0);
  for (auto const& e : g.edges) ++a.offsets[end(e) + 1];
  for (std::size_t n = 0; n < g.nodes.size(); ++n) a.offsets[n + 1] += a.offsets[n];
  a.edges.resize(g.edges.size());
  auto next = a.offsets;
  for (std::size_t i = 0; i < g.edges.size(); ++i) a.edges[next[end(g.edges[i])]++] = i;
  return a;
}

/// The nodes in networkx's topological-generation order; fewer than all when there is a cycle.
std::vector<std::uint32_t> generation_order(path_graph const& g, edge_groups const& out) {
  std::vector<std::size_t> indegree(g.nodes.size(), 0);
  for (auto const& e : g.edges) ++indegree[e.to];
  std::vector<std::uint32_t> order, generation, next;
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n)
    if (indegree[n] == 0) generation.push_back(n);
  while (!generation.empty()) {
    next.clear();
    for (auto const n : generation) {
      order.push_back(n);
      for (auto const e : out.of(n))
        if (--indegree[g.edges[e].to] == 0) next.push_back(g.edges[e].to);
    }
    std::swap(generation, next);
  }
  return order;
}

}  // namespace

path_order order_of(path_graph const& g) {
  path_order o;
  o.incoming = group_edges(g, [](graph_edge const& e) { return e.to; });
  o.order = generation_order(g, group_edges(g, [](graph_edge const& e) { return e.from; }));
  return o;
}

longest_path find_longest_path(path_graph const& g, path_order const& o,
                               std::span<std::int64_t const> weights) {
  longest_path result;
  if (g.nodes.empty()) return result;
  if (!o.acyclic(g)) {
    result.acyclic = false;
    return result;
  }
  constexpr std::int64_t none = -1;
  std::vector<std::int64_t> dist(g.nodes.size(), 0), via(g.nodes.size(), none);
  std::int64_t best = -1;
  std::uint32_t last = o.order.front();
  for (auto const v : o.order) {
    for (auto const e : o.incoming.of(v)) {
      auto const d = dist[g.edges[e].from] + weights[e];
      if (via[v] == none || d > dist[v]) dist[v] = d, via[v] = static_cast<std::int64_t>(e);
    }
    if (dist[v] < 0) dist[v] = 0, via[v] = none;  // networkx starts afresh past a negative sum
    if (dist[v] > best) best = dist[v], last = v;
  }
  result.length = best;
  for (auto v = last; via[v] != none; v = g.edges[static_cast<std::size_t>(via[v])].from)
    result.edges.push_back(static_cast<std::size_t>(via[v]));
  std::reverse(result.edges.begin(), result.edges.end());
  return result;
}

}  // namespace tracesweep::critical_path_detail
