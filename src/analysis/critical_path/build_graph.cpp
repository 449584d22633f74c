// SPDX-License-Identifier: Apache-2.0
// The critical-path graph of one window: a start and an end node for each host operator, runtime
// call and GPU operation of the window, then the edges of the runtime lock, the call stacks and
// the GPU (docs/critical_path.md).
#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep::critical_path_detail {

namespace {

/// Host rows that are nodes: framework operators (Kineto's cpu_op) and runtime or driver calls;
/// in an nsys export, NVTX ranges take the operators' part, but for the ranges named like steps,
/// which are windows, as Kineto's ProfilerStep annotations are.
bool is_host_node(trace_model const& model, std::size_t row) {
  auto const& t = model.table();
  if (t.kind[row] == event_kind::api_call) return true;
  if (model.row_producer(row) == producer::nsys)
    return t.kind[row] == event_kind::user_range && is_host_range(t, row) &&
           !model.is_step_name(t.name[row]);
  return t.role[row].family() == category_role::op;
}

/// GPU rows that are nodes: operations and synchronisation records on a stream, with a
/// correlation id.
bool is_gpu_node(event_table const& t, std::size_t row) {
  return (is_device_activity(t.kind[row]) || t.kind[row] == event_kind::synchronization) &&
         t.stream[row] >= 0 && t.correlation_of(row) >= 0;
}

void add_nodes(event_table const& t, std::size_t row, path_graph& g) {
  g.nodes.push_back({t.start_ns[row], row, true});
  g.nodes.push_back({t.end_ns[row], row, false});
}

}  // namespace

void add_runtime_lock_edges(trace_model const& model, launch_links const& links, path_graph& g) {
  auto const& t = model.table();
  std::vector<std::uint32_t> open;  // start nodes of lock calls not yet ended
  std::int64_t last = -1;           // the last lock call's node
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n) {
    auto const& node = g.nodes[n];
    if (t.kind[node.row] != event_kind::api_call || (links.classes(t, node.row) & lock_call) == 0)
      continue;
    if (node.is_start) {
      open.push_back(n);
    } else {
      while (!open.empty()) {
        auto const start = open.back();
        open.pop_back();
        if (g.nodes[start].row == node.row)
          g.attribute(g.add_edge(start, n, path_edge_type::operator_span), -1);
        else
          g.add_edge(start, n, path_edge_type::dependency);
      }
      if (last >= 0 && !g.nodes[static_cast<std::size_t>(last)].is_start)
        g.add_edge(static_cast<std::uint32_t>(last), n, path_edge_type::dependency);
    }
    last = n;
  }
}

path_graph build_graph(trace_model const& model, launch_links const& links, window_rows const& w) {
  auto const& t = model.table();
  path_graph g;
  for (auto const r : w.host)
    if (is_host_node(model, r)) add_nodes(t, r, g);
  for (auto const r : w.gpu)
    if (is_gpu_node(t, r)) add_nodes(t, r, g);
  g.index_nodes();
  add_runtime_lock_edges(model, links, g);
  add_call_stack_edges(model, links, w, g);
  add_gpu_edges(model, links, w, g);
  return g;
}

}  // namespace tracesweep::critical_path_detail
