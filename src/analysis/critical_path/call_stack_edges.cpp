// SPDX-License-Identifier: Apache-2.0
// Edges along the host call stacks, as HTA builds them: each thread's rows of the window nested
// by time (HTA's call stack order and its stack rule), then walked depth first, an edge from the
// last node reached to each start and end of an operator or call: operator edges inside a parent
// (its span split at its children's boundaries), dependency edges between top-level operators.
// The backward thread (the one thread with "autograd" operators) joins the forward thread (the
// one with "forward" operators), so that the path flows through the backward pass.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep::critical_path_detail {

namespace {

struct stack_event {
  std::int64_t time = 0, dur = 0;
  std::size_t row = 0;
  bool start = false;
};

/// HTA's order of a thread's starts and ends (all durations > 0 here): by time; at one time ends
/// before starts, longer starts first, shorter ends first, then starts by row and ends by row
/// descending.
bool stack_order(stack_event const& x, stack_event const& y) {
  if (x.row == y.row) return x.start && !y.start;
  if (x.time != y.time) return x.time < y.time;
  if (x.start != y.start) return !x.start;
  if (x.dur != y.dur) return x.start ? x.dur > y.dur : x.dur < y.dur;
  return x.start ? x.row < y.row : x.row > y.row;
}

/// A thread's rows as a tree: each row's parent (-1 at the top) and children in time order.
struct call_tree {
  std::map<std::size_t, std::int64_t> parent;
  std::map<std::int64_t, std::vector<std::size_t>> children;  ///< key -1: the top level
};

call_tree nest(event_table const& t, std::span<std::size_t const> rows) {
  std::vector<stack_event> events;
  events.reserve(rows.size() * 2);
  for (auto const r : rows) {
    auto const dur = t.end_ns[r] - t.start_ns[r];
    events.push_back({t.start_ns[r], dur, r, true});
    events.push_back({t.end_ns[r], dur, r, false});
  }
  std::sort(events.begin(), events.end(), stack_order);
  call_tree tree;
  std::vector<std::size_t> open;
  for (auto const& e : events) {
    if (!e.start) {
      if (!open.empty()) open.pop_back();
      continue;
    }
    auto const parent = open.empty() ? std::int64_t{-1} : static_cast<std::int64_t>(open.back());
    tree.parent[e.row] = parent;
    tree.children[parent].push_back(e.row);
    open.push_back(e.row);
  }
  return tree;
}

/// The walk of one thread's tree, adding the edges as HTA's enter and exit callbacks do.
class stack_walk {
 public:
  stack_walk(event_table const& t, launch_links const& links, path_graph& g)
      : _t(t), _links(links), _g(g) {}

  void run(call_tree const& tree) {
    struct frame {
      std::int64_t row;
      std::size_t next_child = 0;
    };
    std::vector<frame> frames{{-1}};
    while (!frames.empty()) {
      auto& f = frames.back();
      auto const kids = tree.children.find(f.row);
      if (kids != tree.children.end() && f.next_child < kids->second.size()) {
        auto const child = kids->second[f.next_child++];
        enter(child, tree.parent.at(child));
        frames.push_back({static_cast<std::int64_t>(child)});
        continue;
      }
      if (f.row >= 0) exit(static_cast<std::size_t>(f.row), tree.parent.at(f.row));
      frames.pop_back();
    }
  }

 private:
  bool lock_node(std::uint32_t n) const {
    auto const row = _g.nodes[n].row;
    return _t.kind[row] == event_kind::api_call && (_links.classes(_t, row) & lock_call) != 0;
  }
  /// Two consecutive nodes of lock calls are ordered by the runtime lock's edges instead, unless
  /// the first ends one call and the second starts the next.
  bool shares_lock(std::uint32_t first, std::uint32_t second) const {
    return lock_node(first) && lock_node(second) &&
           (_g.nodes[first].is_start || !_g.nodes[second].is_start);
  }

  void enter(std::size_t row, std::int64_t parent) {
    auto const* ids = _g.nodes_of(row);
    if (!ids) return;
    if (_last && !shares_lock(*_last, ids->first)) {
      auto const type = _depth == 0 ? path_edge_type::dependency : path_edge_type::operator_span;
      _g.attribute(_g.add_edge(*_last, ids->first, type), _last_parent);
    }
    _last = ids->first;
    _last_parent = parent;
    ++_depth;
  }

  void exit(std::size_t row, std::int64_t parent) {
    auto const* ids = _g.nodes_of(row);
    if (!ids) return;
    if (_last && !shares_lock(*_last, ids->second)) {
      // A call that waits for the GPU adds no host time: the sync edge carries the wait.
      bool const blocking = (_links.classes(_t, row) & blocking_call) != 0;
      _g.attribute(_g.add_edge(*_last, ids->second, path_edge_type::operator_span, blocking),
                   _last_parent);
    }
    _last = ids->second;
    _last_parent = parent;
    --_depth;
  }

  event_table const& _t;
  launch_links const& _links;
  path_graph& _g;
  std::optional<std::uint32_t> _last;
  std::int64_t _last_parent = -1;
  int _depth = 0;
};

/// The one thread whose operators or annotations have `word` in their names, if one.
std::optional<std::int64_t> thread_with(event_table const& t, window_rows const& w,
                                        std::string_view word) {
  std::set<std::int64_t> threads;
  for (auto const r : w.host) {
    auto const family = t.role[r].family();
    if ((family == category_role::op || family == category_role::annotation) &&
        t.strings().at(t.name[r]).find(word) != std::string_view::npos)
      threads.insert(t.stream[r]);
  }
  if (threads.size() == 1) return *threads.begin();
  return std::nullopt;
}

}  // namespace

void add_call_stack_edges(trace_model const& model, launch_links const& links, window_rows const& w,
                          path_graph& g) {
  auto const& t = model.table();
  auto const forward = thread_with(t, w, "forward");
  auto const backward = thread_with(t, w, "autograd");
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> threads;
  for (auto const r : w.host) {
    auto thread = t.stream[r];
    if (forward && backward && thread == *backward) thread = *forward;
    threads[{t.input_of(r), thread}].push_back(r);
  }
  for (auto const& [thread, rows] : threads) stack_walk(t, links, g).run(nest(t, rows));
}

}  // namespace tracesweep::critical_path_detail
