// SPDX-License-Identifier: Apache-2.0
// The critical path of a window of one rank (a profiler step, an annotation's instance, the whole
// trace): the longest path through the dependency graph Holistic Trace Analysis defines (a node at
// each start and end of host operators, runtime calls and GPU operations; operator, launch,
// kernel-to-kernel, dependency and synchronisation edges), its length in integer ns, what bounds
// each edge, the events on it, and what shortening events would buy (what-if factors; the payoff
// of each costly event taking no time, computed on the graph). docs/critical_path.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

/// An edge's type, as HTA names them (less its "critical_path_" prefix).
enum class path_edge_type : std::uint8_t {
  operator_span,        ///< "operator": part of an operator's or a GPU operation's span
  kernel_launch_delay,  ///< from a launch call's start to its kernel's start
  kernel_kernel_delay,  ///< from a kernel's end to the next one's start on its stream
  dependency,           ///< order between operators (weight 0)
  sync_dependency,      ///< a GPU operation's end → a synchronisation's end (weight 0)
};
[[nodiscard]] std::string_view path_edge_type_name(path_edge_type t) noexcept;

/// What an edge on the path is bounded by (HTA's bound types).
enum class path_bound : std::uint8_t {
  cpu_bound,
  gpu_compute_bound,
  gpu_communication_bound,
  gpu_kernel_kernel_overhead,
  gpu_kernel_launch_overhead,
  dependency,
};
inline constexpr std::size_t path_bound_count = 6;
[[nodiscard]] std::string_view path_bound_name(path_bound b) noexcept;

/// A what-if: the events whose names the regex finds (RE2, any case) take `factor` times their
/// time on the graph.
struct what_if_factor {
  std::string pattern;
  double factor = 1.0;
};

struct critical_path_options {
  /// Rows whose name contains this (any kind, in row order, as HTA) are the windows; empty: the
  /// rank's step windows (profiler steps; NVTX ranges named by the model's step pattern), or the
  /// whole rank when it has none.
  std::string annotation;
  /// Only this instance (0-based) of the annotation or the steps; none: every one.
  std::optional<std::size_t> instance;
  std::optional<std::int32_t> rank;  ///< only this rank; none: every rank
  std::vector<what_if_factor> what_ifs;
  /// The costliest events, and names, whose payoff is computed.
  std::size_t payoff_events = 10;
};

/// One edge of a path. `from`/`to` are the rows whose start (or end) the nodes are.
struct path_edge {
  std::size_t from_row = 0, to_row = 0;
  bool from_start = false, to_start = false;
  std::int64_t from_ns = 0, to_ns = 0;
  path_edge_type type = path_edge_type::operator_span;
  std::int64_t weight_ns = 0;
  std::int64_t event = -1;  ///< the row the edge is attributed to (operator, kernel-kernel), or -1
  path_bound bound = path_bound::dependency;
};

/// An event on the path with the time of the edges attributed to it.
struct path_event {
  std::size_t row = 0;
  std::int64_t time_ns = 0;
};

/// What taking an event's time away would save: the path's length without it.
struct path_payoff {
  std::size_t row = 0;
  std::int64_t time_ns = 0;   ///< its time on the path
  std::int64_t saved_ns = 0;  ///< the step's length minus the new longest path's
};

/// What taking the time of every event of one name away would save (all its instances in the
/// window, on the path or not).
struct name_payoff {
  string_id name = 0;
  std::size_t instances = 0;  ///< its events on the path
  std::int64_t time_ns = 0;   ///< their time on the path
  std::int64_t saved_ns = 0;  ///< the step's length minus the new longest path's
};

struct critical_path_window {
  std::int32_t rank = 0;
  std::string name;  ///< the annotation's or step's name, or "" for the whole rank
  std::size_t instance = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t total_ns = 0;
  std::size_t graph_nodes = 0, graph_edges = 0;  ///< nodes with an edge, edges
  std::vector<path_edge> edges;                  ///< in path order
  std::vector<path_event> events;                ///< most time first, then row
  std::size_t path_events = 0;                   ///< distinct events the path's nodes belong to
  std::array<std::int64_t, path_bound_count> bound_ns{};
  std::optional<std::int64_t> what_if_ns;  ///< the length with every what-if factor applied
  std::vector<path_payoff> payoffs;        ///< the costliest events', most time first
  std::vector<name_payoff> name_payoffs;   ///< the costliest names', most time first
  std::string failure;  ///< why there is no path (an invalid graph); empty when there is one
};

struct critical_path_result {
  std::vector<critical_path_window> windows;  ///< by rank, then window start
  std::vector<std::string> notes;
};

/// The critical paths of the windows `options` selects. Throws pattern_error for a what-if
/// pattern that does not compile.
[[nodiscard]] critical_path_result critical_path(job_session const& session,
                                                 critical_path_options const& options);

/// The tables critical_path, critical_path_summary, critical_path_events, critical_path_payoff,
/// critical_path_name_payoff, critical_path_edges (and critical_path_what_if when any factor was
/// given). The set keeps the result: the edge and event listings make each row as it is written.
[[nodiscard]] output::result_set critical_path_results(critical_path_result result,
                                                       trace_model const& model,
                                                       bool what_ifs = false);

}  // namespace tracesweep
