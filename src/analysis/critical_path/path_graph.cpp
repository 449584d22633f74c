// SPDX-License-Identifier: Apache-2.0
// The critical-path graph's nodes and edges, kept as networkx keeps HTA's DiGraph.
#include "analysis/critical_path/path_graph.hpp"

#include <algorithm>
#include <tuple>

namespace tracesweep::critical_path_detail {

std::pair<std::uint32_t, std::uint32_t> const* path_graph::nodes_of(std::size_t row) const {
  auto const it = _row_nodes.find(row);
  return it == _row_nodes.end() ? nullptr : &it->second;
}

void path_graph::index_nodes() {
  std::sort(nodes.begin(), nodes.end(), [](graph_node const& a, graph_node const& b) {
    return std::tuple(a.ts, a.row, !a.is_start) < std::tuple(b.ts, b.row, !b.is_start);
  });
  _row_nodes.reserve(nodes.size() / 2);
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    auto& ids = _row_nodes[nodes[i].row];
    (nodes[i].is_start ? ids.first : ids.second) = i;
  }
}

std::size_t path_graph::add_edge(std::uint32_t from, std::uint32_t to, path_edge_type type,
                                 bool zero_weight) {
  bool const weightless =
      zero_weight || type == path_edge_type::dependency || type == path_edge_type::sync_dependency;
  std::int64_t const weight = weightless ? 0 : nodes[to].ts - nodes[from].ts;
  auto const key = (std::uint64_t{from} << 32) | to;
  auto const [it, added] = _edge_index.try_emplace(key, edges.size());
  if (added) {
    edges.push_back({from, to, type, weight, -1});
  } else {
    auto& e = edges[it->second];
    e.type = type;
    e.weight = weight;
  }
  return it->second;
}

void path_graph::attribute(std::size_t e, std::int64_t parent) {
  auto& edge = edges[e];
  if (edge.type != path_edge_type::operator_span &&
      edge.type != path_edge_type::kernel_kernel_delay)
    return;
  auto const& src = nodes[edge.from];
  auto const& dest = nodes[edge.to];
  if (edge.type == path_edge_type::kernel_kernel_delay || src.is_start)
    edge.event = static_cast<std::int64_t>(src.row);
  else if (!dest.is_start)
    edge.event = static_cast<std::int64_t>(dest.row);
  else
    edge.event = parent;
}

}  // namespace tracesweep::critical_path_detail
