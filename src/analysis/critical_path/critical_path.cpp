// SPDX-License-Identifier: Apache-2.0
// The critical path of each window: the windows a rank's annotation, steps or span give, the rows
// HTA would clip to each, the graph and its longest path, what bounds each edge, the time of each
// event on the path, what-if factors and the payoff of the costliest events.
#include <tracesweep/analysis/critical_path.hpp>

#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <tracesweep/model/name_regex.hpp>

#include "analysis/critical_path/path_graph.hpp"

namespace tracesweep {

std::string_view path_edge_type_name(path_edge_type t) noexcept {
  switch (t) {
    case path_edge_type::operator_span:
      return "operator";
    case path_edge_type::kernel_launch_delay:
      return "kernel_launch_delay";
    case path_edge_type::kernel_kernel_delay:
      return "kernel_kernel_delay";
    case path_edge_type::dependency:
      return "dependency";
    case path_edge_type::sync_dependency:
      return "sync_dependency";
  }
  return "dependency";
}

std::string_view path_bound_name(path_bound b) noexcept {
  switch (b) {
    case path_bound::cpu_bound:
      return "cpu_bound";
    case path_bound::gpu_compute_bound:
      return "gpu_compute_bound";
    case path_bound::gpu_communication_bound:
      return "gpu_communication_bound";
    case path_bound::gpu_kernel_kernel_overhead:
      return "gpu_kernel_kernel_overhead";
    case path_bound::gpu_kernel_launch_overhead:
      return "gpu_kernel_launch_overhead";
    case path_bound::dependency:
      return "dependency";
  }
  return "dependency";
}

namespace {

using namespace critical_path_detail;

/// A rank's rows, gathered once for all its windows.
struct rank_rows {
  std::vector<std::size_t> all;            ///< in row order
  std::vector<std::size_t> host_by_start;  ///< host rows by (start, row)
  std::vector<std::size_t> device_syncs;   ///< sync records off any stream, in row order
  std::vector<std::size_t> stream_waits;   ///< "Stream Wait Event" records, in row order
  /// GPU rows on a stream with the call that launched or awaited them, by (the call's start,
  /// row): a call may launch many (a CUDA graph's kernels share its correlation id).
  std::vector<std::size_t> gpu_by_call_start;
};

std::vector<rank_rows> gather_rows(trace_model const& model, launch_links const& links) {
  auto const& t = model.table();
  std::vector<rank_rows> ranks(model.ranks().size());
  for (std::size_t r = 0; r < t.size(); ++r) {
    auto& rows = ranks[model.rank_index(t.rank[r])];
    rows.all.push_back(r);
    if (t.device[r] < 0) rows.host_by_start.push_back(r);
    if (t.device[r] >= 0 && t.stream[r] >= 0 && links.linked[r] >= 0)
      rows.gpu_by_call_start.push_back(r);
    if (t.kind[r] != event_kind::synchronization) continue;
    if (t.stream[r] < 0 && (links.classes(t, r) & (waits_on_event | context_sync)) != 0)
      rows.device_syncs.push_back(r);
    else if (t.stream[r] >= 0 && t.strings().at(t.name[r]) == "Stream Wait Event")
      rows.stream_waits.push_back(r);
  }
  auto call_start = [&](std::size_t r) {
    return t.start_ns[static_cast<std::size_t>(links.linked[r])];
  };
  for (auto& rows : ranks) {
    std::sort(rows.host_by_start.begin(), rows.host_by_start.end(), [&](auto a, auto b) {
      return std::tie(t.start_ns[a], a) < std::tie(t.start_ns[b], b);
    });
    std::sort(rows.gpu_by_call_start.begin(), rows.gpu_by_call_start.end(), [&](auto a, auto b) {
      return std::pair(call_start(a), a) < std::pair(call_start(b), b);
    });
  }
  return ranks;
}

/// HTA's clip: host rows starting in the window with a positive duration (and sync records off
/// any stream likewise); GPU rows whose call is such a host row; every Stream Wait Event record.
window_rows clip(trace_model const& model, launch_links const& links, rank_rows const& rows,
                 std::int32_t rank, std::int64_t start, std::int64_t end) {
  auto const& t = model.table();
  window_rows w{rank, start, end, {}, {}};
  auto in_window = [&](std::size_t r) {
    return t.start_ns[r] >= start && t.start_ns[r] <= end && t.end_ns[r] > t.start_ns[r];
  };
  auto const& h = rows.host_by_start;
  auto first = std::lower_bound(h.begin(), h.end(), start,
                                [&](std::size_t r, std::int64_t ts) { return t.start_ns[r] < ts; });
  for (auto it = first; it != h.end() && t.start_ns[*it] <= end; ++it)
    if (in_window(*it)) w.host.push_back(*it);
  auto const call = [&](std::size_t r) { return static_cast<std::size_t>(links.linked[r]); };
  auto const& g = rows.gpu_by_call_start;
  auto gpu = std::lower_bound(g.begin(), g.end(), start, [&](std::size_t r, std::int64_t ts) {
    return t.start_ns[call(r)] < ts;
  });
  for (; gpu != g.end() && t.start_ns[call(*gpu)] <= end; ++gpu)
    if (in_window(call(*gpu))) w.gpu.push_back(*gpu);
  for (auto const r : rows.device_syncs)
    if (in_window(r)) w.gpu.push_back(r);
  w.gpu.insert(w.gpu.end(), rows.stream_waits.begin(), rows.stream_waits.end());
  std::sort(w.host.begin(), w.host.end());
  std::sort(w.gpu.begin(), w.gpu.end());
  w.gpu.erase(std::unique(w.gpu.begin(), w.gpu.end()), w.gpu.end());
  return w;
}

struct window_spec {
  std::string name;
  std::size_t instance = 0;
  std::int64_t start = 0, end = 0;
};

/// The windows of one rank: the annotation's instances (rows whose name contains it, in row
/// order), else its step windows (profiler steps, or NVTX ranges named like steps), else its
/// whole span.
std::vector<window_spec> windows_of(trace_model const& model, std::size_t rank_index,
                                    rank_rows const& rows, critical_path_options const& o) {
  auto const& t = model.table();
  std::vector<window_spec> all;
  auto add = [&](std::size_t r) {
    all.push_back({std::string(t.strings().at(t.name[r])), all.size(), t.start_ns[r], t.end_ns[r]});
  };
  if (!o.annotation.empty()) {
    for (auto const r : rows.all)
      if (t.strings().at(t.name[r]).find(o.annotation) != std::string_view::npos) add(r);
  } else if (!model.step_windows(rank_index).empty()) {
    for (auto const& step : model.step_windows(rank_index))
      all.push_back({std::string(t.strings().at(step.name)), all.size(), step.start, step.end});
  } else if (!rows.all.empty()) {
    window_spec whole{"", 0, std::numeric_limits<std::int64_t>::max(),
                      std::numeric_limits<std::int64_t>::min()};
    for (auto const r : rows.all)
      whole.start = std::min(whole.start, t.start_ns[r]),
      whole.end = std::max(whole.end, t.end_ns[r]);
    all.push_back(whole);
  }
  if (!o.instance) return all;
  if (*o.instance >= all.size()) return {};
  return {all[*o.instance]};
}

path_bound bound_of(trace_model const& model, graph_edge const& e) {
  switch (e.type) {
    case path_edge_type::kernel_kernel_delay:
      return path_bound::gpu_kernel_kernel_overhead;
    case path_edge_type::kernel_launch_delay:
      return path_bound::gpu_kernel_launch_overhead;
    case path_edge_type::dependency:
    case path_edge_type::sync_dependency:
      return path_bound::dependency;
    case path_edge_type::operator_span:
      break;
  }
  auto const& t = model.table();
  if (e.event < 0) return path_bound::cpu_bound;
  auto const row = static_cast<std::size_t>(e.event);
  if (t.device[row] < 0 || t.stream[row] < 0) return path_bound::cpu_bound;
  return model.is_communication(t.name[row]) ? path_bound::gpu_communication_bound
                                             : path_bound::gpu_compute_bound;
}

/// Why HTA would not trust the graph: a synchronisation between operations of one stream.
std::string invalid_sync(event_table const& t, path_graph const& g) {
  for (auto const& e : g.edges) {
    if (e.type != path_edge_type::sync_dependency) continue;
    auto const a = g.nodes[e.from].row, b = g.nodes[e.to].row;
    if (t.stream[a] >= 0 && t.device[a] >= 0 && t.stream[a] == t.stream[b] &&
        t.device[a] == t.device[b])
      return fmt::format("a synchronisation edge joins two operations of stream {}", t.stream[a]);
  }
  return {};
}

/// Weights with `scale(edge)` applied to the operator edges attributed to an event.
template <class Scale>
std::vector<std::int64_t> scaled(path_graph const& g, std::span<std::int64_t const> weights,
                                 Scale const& scale) {
  std::vector<std::int64_t> w(weights.begin(), weights.end());
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges[i].type == path_edge_type::operator_span && g.edges[i].event >= 0)
      w[i] = scale(static_cast<std::size_t>(g.edges[i].event), w[i]);
  return w;
}

/// The nodes with an edge: what HTA's graph holds (networkx adds a node with its first edge).
std::size_t connected_nodes(path_graph const& g) {
  std::vector<std::uint8_t> seen(g.nodes.size(), 0);
  for (auto const& e : g.edges) seen[e.from] = seen[e.to] = 1;
  return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), 1));
}

struct compiled_what_if {
  name_regex regex;
  double factor;
};

void add_path(trace_model const& model, path_graph const& g, std::span<std::int64_t const> weights,
              longest_path const& lp, critical_path_window& out) {
  out.total_ns = lp.length;
  std::unordered_map<std::size_t, std::int64_t> time_of;
  std::vector<std::size_t> rows;
  for (auto const i : lp.edges) {
    auto const& e = g.edges[i];
    auto const& from = g.nodes[e.from];
    auto const& to = g.nodes[e.to];
    path_edge pe{from.row, to.row, from.is_start, to.is_start, from.ts,
                 to.ts,    e.type, weights[i],    e.event,     bound_of(model, e)};
    out.bound_ns[static_cast<std::size_t>(pe.bound)] += pe.weight_ns;
    if (e.type == path_edge_type::operator_span && e.event >= 0)
      time_of[static_cast<std::size_t>(e.event)] += pe.weight_ns;
    rows.push_back(from.row), rows.push_back(to.row);
    out.edges.push_back(pe);
  }
  std::sort(rows.begin(), rows.end());
  out.path_events = static_cast<std::size_t>(std::unique(rows.begin(), rows.end()) - rows.begin());
  for (auto const& [row, time] : time_of) out.events.push_back({row, time});
  std::sort(out.events.begin(), out.events.end(), [](path_event const& a, path_event const& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.row < b.row;
  });
}

/// The payoff of the costliest names on the path: every instance of the name at no time.
void add_name_payoffs(event_table const& t, path_graph const& g, path_order const& order,
                      std::span<std::int64_t const> weights, std::size_t count,
                      critical_path_window& out) {
  std::unordered_map<string_id, name_payoff> by_name;
  for (auto const& e : out.events) {
    auto& p = by_name[t.name[e.row]];
    p.name = t.name[e.row], ++p.instances, p.time_ns += e.time_ns;
  }
  std::vector<name_payoff> names;
  for (auto const& [name, p] : by_name) names.push_back(p);
  std::sort(names.begin(), names.end(), [&](name_payoff const& a, name_payoff const& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns
                                  : t.strings().at(a.name) < t.strings().at(b.name);
  });
  names.resize(std::min(count, names.size()));
  for (auto& p : names) {
    auto const w = scaled(g, weights, [&](std::size_t r, std::int64_t weight) {
      return t.name[r] == p.name ? 0 : weight;
    });
    p.saved_ns = out.total_ns - find_longest_path(g, order, w).length;
  }
  out.name_payoffs = std::move(names);
}

void add_what_ifs(trace_model const& model, path_graph const& g, path_order const& order,
                  std::span<std::int64_t const> weights,
                  std::vector<compiled_what_if> const& what_ifs, std::size_t payoff_events,
                  critical_path_window& out) {
  auto const& t = model.table();
  if (!what_ifs.empty()) {
    auto const w = scaled(g, weights, [&](std::size_t row, std::int64_t weight) {
      for (auto const& f : what_ifs)
        if (f.regex.matches(t.strings().at(t.name[row])))
          return static_cast<std::int64_t>(std::llround(static_cast<double>(weight) * f.factor));
      return weight;
    });
    out.what_if_ns = find_longest_path(g, order, w).length;
  }
  for (std::size_t k = 0; k < std::min(payoff_events, out.events.size()); ++k) {
    auto const row = out.events[k].row;
    auto const w = scaled(
        g, weights, [&](std::size_t r, std::int64_t weight) { return r == row ? 0 : weight; });
    out.payoffs.push_back(
        {row, out.events[k].time_ns, out.total_ns - find_longest_path(g, order, w).length});
  }
  add_name_payoffs(t, g, order, weights, payoff_events, out);
}

}  // namespace

critical_path_result critical_path(job_session const& session, critical_path_options const& o) {
  auto const& model = session.model();
  auto const& t = model.table();
  std::vector<compiled_what_if> what_ifs;
  for (auto const& f : o.what_ifs) what_ifs.push_back({name_regex(f.pattern), f.factor});
  critical_path_result result;
  auto const links = link_launches(model);
  auto const ranks = gather_rows(model, links);
  for (std::size_t ri = 0; ri < model.ranks().size(); ++ri) {
    auto const rank = model.ranks()[ri];
    if (o.rank && *o.rank != rank) continue;
    auto const specs = windows_of(model, ri, ranks[ri], o);
    if (specs.empty())
      result.notes.push_back(
          o.annotation.empty() ? fmt::format("rank {}: no step {}", rank, o.instance.value_or(0))
                               : fmt::format("rank {}: no instance {} of an event named like '{}'",
                                             rank, o.instance.value_or(0), o.annotation));
    for (auto const& spec : specs) {
      critical_path_window out;
      out.rank = rank, out.name = spec.name, out.instance = spec.instance;
      out.start_ns = spec.start, out.end_ns = spec.end;
      auto const g =
          build_graph(model, links, clip(model, links, ranks[ri], rank, spec.start, spec.end));
      out.graph_nodes = connected_nodes(g), out.graph_edges = g.edges.size();
      std::vector<std::int64_t> weights;
      for (auto const& e : g.edges) weights.push_back(std::max<std::int64_t>(e.weight, 0));
      auto const order = order_of(g);  // once: the payoffs and what-ifs reuse it
      auto const lp = find_longest_path(g, order, weights);
      out.failure = lp.acyclic ? invalid_sync(t, g) : "the graph has a cycle";
      if (out.failure.empty()) {
        add_path(model, g, weights, lp, out);
        add_what_ifs(model, g, order, weights, what_ifs, o.payoff_events, out);
      }
      result.windows.push_back(std::move(out));
    }
  }
  return result;
}

}  // namespace tracesweep
