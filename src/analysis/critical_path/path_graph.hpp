// SPDX-License-Identifier: Apache-2.0
// The critical-path graph of one window and what builds it (docs/critical_path.md): the job's
// links between launch calls and GPU operations (launch_links), the graph's nodes and edges
// (path_graph), and the builders of its edges: host call stacks, the runtime lock, GPU operations
// and synchronisations.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tracesweep/analysis/critical_path.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::critical_path_detail {

/// What a name is to the graph, one bit each (names compared without nsys's "_v<digits>" suffix).
enum name_class : std::uint8_t {
  lock_call = 1,        ///< cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync: the runtime lock
  launch_call = 2,      ///< a call that enqueues work on a stream (cudaLaunchKernel, …)
  blocking_call = 4,    ///< a call that may wait for the GPU (cudaDeviceSynchronize, …)
  record_call = 8,      ///< cudaEventRecord
  wait_call = 16,       ///< cudaStreamWaitEvent
  waits_on_event = 32,  ///< a GPU record "Event Sync" or "Stream Wait Event"
  context_sync = 64,    ///< a GPU record "Context Sync"
  stream_sync = 128,    ///< a GPU record "Stream Sync"
};

/// A launch call that put a GPU operation on a stream, in time order.
struct launch {
  std::int64_t start = 0;
  std::size_t call = 0;
};

/// A stream or a thread's stream of one input's rank: (input, rank, device or thread, stream).
struct stream_key {
  std::int32_t input = 0, rank = 0;
  std::int64_t owner = 0, stream = 0;
  friend bool operator==(stream_key const&, stream_key const&) = default;
};
struct stream_key_hash {
  std::size_t operator()(stream_key const& k) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::uint64_t v :
         {std::uint64_t(std::uint32_t(k.input)), std::uint64_t(std::uint32_t(k.rank)),
          std::uint64_t(k.owner), std::uint64_t(k.stream)})
      h = (h ^ v) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};
/// A correlation id of one input's rank.
struct correlation_key {
  std::int32_t input = 0, rank = 0;
  std::int64_t correlation = 0;
  friend bool operator==(correlation_key const&, correlation_key const&) = default;
};
struct correlation_key_hash {
  std::size_t operator()(correlation_key const& k) const noexcept {
    return stream_key_hash{}(stream_key{k.input, k.rank, k.correlation, 0});
  }
};

/// The job's links, built once: HTA's index_correlation (a launch or synchronisation call ↔ its
/// GPU row), the stream queue lengths, each stream's launches in time order.
struct launch_links {
  std::vector<std::uint8_t> name_classes;  ///< per string id
  std::vector<std::int64_t> linked;        ///< per row: the linked row, or -1
  /// Per GPU operation launched by a launch_call: the stream's queue length after its call
  /// enqueued it (at_call) and after it started (at_start); -1 elsewhere.
  std::vector<std::int32_t> queue_at_call, queue_at_start;
  /// Launches by (input, rank, device, stream) of the GPU operation, in (start, row) order.
  std::unordered_map<stream_key, std::vector<launch>, stream_key_hash> by_stream;
  /// Launches by (input, rank, thread of the call, stream of the GPU operation).
  std::unordered_map<stream_key, std::vector<launch>, stream_key_hash> by_thread_stream;
  /// cudaEventRecord calls by (input, rank, correlation).
  std::unordered_map<correlation_key, std::size_t, correlation_key_hash> records;

  [[nodiscard]] std::uint8_t classes(event_table const& t, std::size_t row) const {
    return name_classes[t.name[row]];
  }
};

[[nodiscard]] launch_links link_launches(trace_model const& model);

/// A point in time: the start or end of an event (a row).
struct graph_node {
  std::int64_t ts = 0;
  std::size_t row = 0;
  bool is_start = false;
};

struct graph_edge {
  std::uint32_t from = 0, to = 0;
  path_edge_type type = path_edge_type::operator_span;
  std::int64_t weight = 0;
  std::int64_t event = -1;  ///< the row the edge is attributed to, or -1
};

/// A directed graph as networkx keeps HTA's: adding an edge that exists replaces its type and
/// weight where it stands; edges keep their first insertion's order, which decides ties.
class path_graph {
 public:
  std::vector<graph_node> nodes;  ///< by (ts, row, start first): the index is the node id
  std::vector<graph_edge> edges;  ///< in first-insertion order

  /// The (start, end) node ids of `row`, or nullptr when it has none.
  [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> const* nodes_of(std::size_t row) const;
  /// Orders the nodes and indexes them by row; call once, after the nodes are in.
  void index_nodes();
  /// Adds (or replaces) the edge from → to: weight to.ts − from.ts, or 0 for dependency and
  /// sync edges and when `zero_weight`. Returns its index.
  std::size_t add_edge(std::uint32_t from, std::uint32_t to, path_edge_type type,
                       bool zero_weight = false);
  /// Attributes operator and kernel-kernel edge `e` to an event as HTA does: the source's event
  /// for a kernel-kernel delay or when the source is a start, else the destination's when it is
  /// an end, else `parent` (the enclosing operator between two siblings).
  void attribute(std::size_t e, std::int64_t parent);

 private:
  std::unordered_map<std::size_t, std::pair<std::uint32_t, std::uint32_t>> _row_nodes;
  std::unordered_map<std::uint64_t, std::size_t> _edge_index;
};

/// The rows of one window of one rank, as HTA clips them, and the graph built on them.
struct window_rows {
  std::int32_t rank = 0;
  std::int64_t start = 0, end = 0;
  std::vector<std::size_t> host;  ///< host rows starting in the window, dur > 0, in row order
  std::vector<std::size_t> gpu;   ///< GPU rows whose call starts in the window, in row order
};

/// The graph of window `w` (nodes, runtime lock, call stacks, GPU operations and syncs).
[[nodiscard]] path_graph build_graph(trace_model const& model, launch_links const& links,
                                     window_rows const& w);

/// Edges of the runtime lock: calls that take it (lock_call) complete one at a time.
void add_runtime_lock_edges(trace_model const& model, launch_links const& links, path_graph& g);
/// Edges along each host thread's call stack (operators and calls nested by time).
void add_call_stack_edges(trace_model const& model, launch_links const& links, window_rows const& w,
                          path_graph& g);
/// Edges of GPU operations: spans, launch and kernel-kernel delays, synchronisations.
void add_gpu_edges(trace_model const& model, launch_links const& links, window_rows const& w,
                   path_graph& g);

/// Edge indices grouped by a node (its outgoing or incoming edges), in edge order.
struct edge_groups {
  std::vector<std::size_t> offsets, edges;
  [[nodiscard]] std::span<std::size_t const> of(std::size_t node) const {
    return std::span(edges).subspan(offsets[node], offsets[node + 1] - offsets[node]);
  }
};

/// What every longest path over a graph needs whatever the weights, built once per graph (the
/// what-ifs and payoffs ask again with other weights): each node's incoming edges, and the nodes
/// in networkx's topological-generation order (the sources in node order, then each generation's
/// successors in edge order); fewer than all nodes when there is a cycle.
struct path_order {
  edge_groups incoming;
  std::vector<std::uint32_t> order;
  [[nodiscard]] bool acyclic(path_graph const& g) const noexcept {
    return order.size() == g.nodes.size();
  }
};
[[nodiscard]] path_order order_of(path_graph const& g);

/// The longest path as networkx's dag_longest_path finds it (the first best predecessor in edge
/// order, the first farthest node in topological-generation order), with `weights` per edge.
struct longest_path {
  std::int64_t length = 0;
  std::vector<std::size_t> edges;  ///< edge indices, in path order
  bool acyclic = true;
};
[[nodiscard]] longest_path find_longest_path(path_graph const& g, path_order const& order,
                                             std::span<std::int64_t const> weights);

}  // namespace tracesweep::critical_path_detail
