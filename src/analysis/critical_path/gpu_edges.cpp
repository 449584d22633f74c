// SPDX-License-Identifier: Apache-2.0
// Edges of the GPU side, as HTA adds them: each operation's span; a launch delay (from its call's
// start) when the stream was empty at the launch and the operation started before another was
// queued behind it, else a kernel-kernel delay from the previous operation on the stream when
// under 1.5 ms; synchronisation edges (weight 0) from the awaited operation's end to the end of
// the call that waited (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize), and
// across streams to the operation queued after a cudaStreamWaitEvent. Operations are taken in
// start order, synchronisation records by their end.
#include <algorithm>
#include <optional>
#include <tuple>

#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep::critical_path_detail {

namespace {

/// HTA's threshold: a longer gap between two operations on a stream is no kernel-kernel delay.
constexpr std::int64_t kernel_kernel_limit_ns = 1'500'000;

class gpu_walk {
 public:
  gpu_walk(event_table const& t, launch_links const& links, path_graph& g)
      : _t(t), _links(links), _g(g) {}

  void sync(std::size_t row) {
    auto const classes = _links.classes(_t, row);
    if ((classes & waits_on_event) != 0) return wait_on_event(row);
    auto const call = _links.linked[row];
    if (call < 0) return;
    if ((classes & context_sync) != 0)
      for (auto const& [key, node] : _last) sync_edge(node, static_cast<std::size_t>(call));
    else if ((classes & stream_sync) != 0)
      if (auto const last = last_on(stream_of(row)))
        sync_edge(*last, static_cast<std::size_t>(call));
  }

  void operation(std::size_t row) {
    auto const* ids = _g.nodes_of(row);
    if (!ids) return;
    auto const [start, end] = *ids;
    _g.attribute(_g.add_edge(start, end, path_edge_type::operator_span), -1);
    auto const awaited = awaited_end(row, start);
    auto const key = stream_of(row);
    auto const last = last_on(key);
    auto const call = _links.linked[row];
    std::int64_t const call_start = call >= 0 ? _t.start_ns[static_cast<std::size_t>(call)] : 0;
    auto const before = [&](std::int64_t ts) { return !awaited || _g.nodes[*awaited].ts < ts; };
    bool launch_added = false;
    if (_links.queue_at_call[row] == 1 && _links.queue_at_start[row] == 0 &&
        (!last || _g.nodes[*last].ts < call_start) && before(call_start)) {
      launch_added = launch_edge(call, start, false);
    } else if (last && _g.nodes[start].ts - _g.nodes[*last].ts < kernel_kernel_limit_ns &&
               before(_g.nodes[*last].ts)) {
      _g.attribute(_g.add_edge(*last, start, path_edge_type::kernel_kernel_delay), -1);
    }
    // Keeps causality: no operation starts before its call (HTA with zero-weight launch edges).
    if (!launch_added) launch_edge(call, start, true);
    set_last(key, end);
  }

 private:
  using key_type = std::pair<std::int32_t, std::int64_t>;
  key_type stream_of(std::size_t row) const { return {_t.device[row], _t.stream[row]}; }

  std::optional<std::uint32_t> last_on(key_type key) const {
    for (auto const& [k, node] : _last)
      if (k == key) return node;
    return std::nullopt;
  }
  void set_last(key_type key, std::uint32_t node) {
    for (auto& [k, n] : _last)
      if (k == key) {
        n = node;
        return;
      }
    _last.emplace_back(key, node);
  }

  void sync_edge(std::uint32_t gpu_node, std::size_t call) {
    if (auto const* ids = _g.nodes_of(call))
      _g.add_edge(gpu_node, ids->second, path_edge_type::sync_dependency);
  }

  bool launch_edge(std::int64_t call, std::uint32_t start, bool zero_weight) {
    auto const* ids = call >= 0 ? _g.nodes_of(static_cast<std::size_t>(call)) : nullptr;
    if (!ids) return false;
    _g.add_edge(ids->first, start, path_edge_type::kernel_launch_delay, zero_weight);
    return true;
  }

  /// The end node of the operation a cudaStreamWaitEvent made `row` wait for, with its sync edge
  /// added; none when there is none or it is outside the window.
  std::optional<std::uint32_t> awaited_end(std::size_t row, std::uint32_t start) {
    auto const it = _awaits.find(row);
    if (it == _awaits.end()) return std::nullopt;
    auto const src = it->second;
    _awaits.erase(it);
    auto const* ids = _g.nodes_of(src);
    if (!ids) return std::nullopt;
    _g.add_edge(ids->second, start, path_edge_type::sync_dependency);
    return ids->second;
  }

  /// The GPU operation whose completion a cudaEventRecord captured: the last one launched on
  /// the recorded stream at or before the record call.
  std::optional<std::size_t> recorded_operation(std::size_t row) const {
    auto const* wait = _t.sync_waits.find(row);
    if (!wait || wait->record_correlation < 0) return std::nullopt;
    auto const input = _t.input_of(row);
    auto const record = _links.records.find({input, _t.rank[row], wait->record_correlation});
    if (record == _links.records.end()) return std::nullopt;
    auto const launches =
        _links.by_stream.find({input, _t.rank[row], _t.device[row], wait->stream});
    if (launches == _links.by_stream.end()) return std::nullopt;
    auto const& l = launches->second;
    auto const at = std::upper_bound(l.begin(), l.end(), _t.start_ns[record->second],
                                     [](std::int64_t ts, launch const& x) { return ts < x.start; });
    if (at == l.begin()) return std::nullopt;
    return static_cast<std::size_t>(_links.linked[std::prev(at)->call]);
  }

  /// The first GPU operation the waiting thread launched on the waiting stream after
  /// cudaStreamWaitEvent call `call`.
  std::optional<std::size_t> next_operation(std::size_t call, std::int64_t stream) const {
    auto const launches =
        _links.by_thread_stream.find({_t.input_of(call), _t.rank[call], _t.stream[call], stream});
    if (launches == _links.by_thread_stream.end()) return std::nullopt;
    auto const& l = launches->second;
    auto const at = std::upper_bound(l.begin(), l.end(), _t.start_ns[call],
                                     [](std::int64_t ts, launch const& x) { return ts < x.start; });
    if (at == l.end()) return std::nullopt;
    return static_cast<std::size_t>(_links.linked[at->call]);
  }

  /// Event Sync: the recorded operation's end → the end of the call that waited for it. Stream
  /// Wait Event: the operation queued next on the waiting stream waits for the recorded one.
  void wait_on_event(std::size_t row) {
    auto const src = recorded_operation(row);
    if (!src) return;
    auto const call = _links.linked[row];
    if (_t.strings().at(_t.name[row]) == "Stream Wait Event") {
      if (call < 0) return;
      if (auto const dest = next_operation(static_cast<std::size_t>(call), _t.stream[row]))
        _awaits[*dest] = *src;
      return;
    }
    auto const* ids = _g.nodes_of(*src);
    if (ids && call >= 0) sync_edge(ids->second, static_cast<std::size_t>(call));
  }

  event_table const& _t;
  launch_links const& _links;
  path_graph& _g;
  std::vector<std::pair<key_type, std::uint32_t>> _last;  ///< per stream, in first-use order
  std::unordered_map<std::size_t, std::size_t> _awaits;   ///< operation → the one it waits for
};

}  // namespace

void add_gpu_edges(trace_model const& model, launch_links const& links, window_rows const& w,
                   path_graph& g) {
  auto const& t = model.table();
  struct item {
    std::int64_t at;
    std::size_t row;
  };
  std::vector<item> items;
  for (auto const r : w.gpu) {
    bool const sync = t.kind[r] == event_kind::synchronization;
    if (t.correlation_of(r) < 0 || !(sync || is_device_activity(t.kind[r]))) continue;
    if (t.stream[r] < 0 && !(sync && (links.classes(t, r) & (waits_on_event | context_sync))))
      continue;
    items.push_back({sync ? t.end_ns[r] : t.start_ns[r], r});
  }
  std::sort(items.begin(), items.end(), [](item const& a, item const& b) {
    return std::tie(a.at, a.row) < std::tie(b.at, b.row);
  });
  gpu_walk walk(t, links, g);
  for (auto const& i : items) {
    if (t.kind[i.row] == event_kind::synchronization)
      walk.sync(i.row);
    else
      walk.operation(i.row);
  }
}

}  // namespace tracesweep::critical_path_detail
