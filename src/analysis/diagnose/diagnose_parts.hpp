// SPDX-License-Identifier: Apache-2.0
// What the diagnosis steps share: the device activity of each device in start order and its
// unions (both from the job session), the host rows of each thread with what each means for a gap;
// the step windows are the model's (trace_model::step_windows). Each step of the diagnosis is one
// file in this folder.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/analysis/collectives.hpp>
#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/model/name_regex.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep::diagnose_detail {

/// part / whole as a ratio; 0 for an empty whole.
[[nodiscard]] inline double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

/// The unions of one device's rows, from the session: all activity, all kernels, and the kernels
/// that are not communication (so the exposed communication of a window is kernels minus
/// computation).
struct device_unions {
  union_members busy, kernels, computation;
};
/// Each device's unions, index = dense device id.
[[nodiscard]] std::vector<device_unions> unions_of(activity_result const& activity);

/// What a host row means for an idle device, by precedence: the first four win wherever they
/// are in progress; otherwise the time after a synchronising call until the next launch is
/// sync; otherwise the innermost row in progress decides (launching or not).
enum class host_class : std::uint8_t {
  sync,           ///< a synchronising call or op
  memcpy,         ///< a memcpy call
  communication,  ///< collective calls, ranges and ops
  data_loading,   ///< data-loader ranges
  launching,      ///< a runtime call, or an op that launches device work inside it
  compute,        ///< an op or range that launches nothing
  step,           ///< a step (profiler step, or a range named like one): never a cause
};

/// Decides the class of host rows: names by RE2 patterns and fixed lists, once per string id.
class host_classifier {
 public:
  host_classifier(trace_model const& model, diagnose_options const& options);
  /// The class of host row `row`; `launches` says whether a launching call lies inside it.
  [[nodiscard]] host_class classify(std::size_t row, bool launches) const;
  [[nodiscard]] bool is_sync_call(std::size_t row) const;
  /// Whether classify() says sync for `row`, whatever it launches.
  [[nodiscard]] bool is_sync(std::size_t row) const;

 private:
  enum flag : std::uint8_t {
    sync_name = 1,
    memcpy_name = 2,
    comm_name = 4,
    loader_name = 8,
    step_name = 16
  };
  trace_model const& _model;
  std::vector<std::uint8_t> _flags;  ///< per string id
};

/// The host rows of one (input, thread) that overlap its query windows, by (start, row), with
/// what a gap needs of them.
struct thread_rows {
  std::vector<std::size_t> rows;
  std::vector<host_class> cls;  ///< alongside rows
  /// Positions in rows of the rows longer than 2^20 ns, by duration class c ≥ 1 (durations in
  /// (2^(19+c), 2^(20+c)] ns), each by start: a search looks back 2^(20+c) ns in each class.
  std::vector<std::vector<std::size_t>> long_rows;
  std::vector<std::int64_t> launches;   ///< starts of calls that launched device work, ascending
  std::vector<std::int64_t> sync_ends;  ///< ends of synchronising calls and ops, ascending
};

/// Host rows of some threads near the intervals that will be asked about, built in one pass
/// over the table: only rows overlapping a query window are kept; every launch and every
/// synchronising call of those threads is.
class host_index {
 public:
  using key = std::pair<std::int32_t, std::int64_t>;  ///< (input, thread)
  struct query {
    key thread;
    std::int64_t start = 0, end = 0;  ///< [start, end]; queries must lie inside one
  };
  host_index(trace_model const& model, host_classifier const& classifier,
             std::vector<query> windows);
  [[nodiscard]] thread_rows const* find(key k) const;

 private:
  std::map<key, thread_rows> _threads;
};

/// The innermost (or outermost) host row of the thread of `call` that contains the call and is
/// neither a runtime call nor a step; -1 when none. The call must lie in a query window.
[[nodiscard]] std::int64_t enclosing_op(trace_model const& model, host_index const& index,
                                        std::size_t call, bool outermost);

/// The name of the innermost host op around the launch call of device row `row` ("" when none
/// is linked or found); the call must lie in a query window.
[[nodiscard]] std::string launching_op_name(trace_model const& model, host_index const& index,
                                            std::size_t row);

/// The host activity of some threads during [start, end): the time by cause and the rows.
struct host_window {
  idle_by_cause cover{};
  std::vector<std::pair<std::int64_t, std::size_t>> rows;  ///< (overlap ns, row), largest first
};
[[nodiscard]] host_window attribute(trace_model const& model, host_index const& index,
                                    std::span<host_index::key const> threads, std::int64_t start,
                                    std::int64_t end);

/// The rows of the launching thread of device row `row` in progress during [start, end), most
/// overlap first, at most `count` (none when no call is linked to it); [start, end] must lie in a
/// query window.
[[nodiscard]] std::vector<context_event> launching_thread_rows(trace_model const& model,
                                                               host_index const& index,
                                                               std::size_t row, std::int64_t start,
                                                               std::int64_t end, std::size_t count);

/// The thread that launched most of each device's rows (none when no row is linked to a call).
[[nodiscard]] std::vector<std::optional<host_index::key>> main_threads(trace_model const& model,
                                                                       device_rows const& order);

/// The launching thread of device row `row`, when a call is linked to it.
[[nodiscard]] std::optional<host_index::key> launching_thread(trace_model const& model,
                                                              std::int64_t row);

/// The index of the step of `steps` (the model's step windows) in progress at `at`, or -1.
[[nodiscard]] std::int64_t step_at(std::span<step_window const> steps, std::int64_t at);

/// A table row as a context event.
[[nodiscard]] context_event describe(event_table const& t, std::size_t row);
[[nodiscard]] device_key key_of(trace_model const& model, std::size_t device);

/// A gap of the activity union (≥ min gap) with its cause: 24 bytes a gap (its host context is
/// found again for the gaps listed).
struct attributed_gap {
  group_id device = 0;
  idle_cause cause = idle_cause::unknown;
  std::int64_t start = 0, end = 0;
};

// The steps of the diagnosis, in the order diagnose() runs them.
[[nodiscard]] std::vector<attributed_gap> attribute_gaps(
    trace_model const& model, device_rows const& order, std::span<gap const> holes,
    host_classifier const& classifier, std::span<std::optional<host_index::key> const> threads,
    diagnosis& out);
void find_verdicts(trace_model const& model, std::span<device_unions const> unions,
                   activity_result const& activity, std::span<attributed_gap const> gaps,
                   std::span<std::optional<host_index::key> const> threads, diagnosis& out);
void find_periodic_gaps(trace_model const& model, activity_result const& activity,
                        std::span<attributed_gap const> gaps, diagnosis& out);
void find_long_tail(trace_model const& model, host_classifier const& classifier, diagnosis& out);
void find_bursts(trace_model const& model, device_rows const& order,
                 host_classifier const& classifier, diagnosis& out);
void find_sync_and_copies(job_session const& session, host_classifier const& classifier,
                          activity_result const& activity, diagnosis& out);
void find_stragglers(trace_model const& model, collective_matching const& matching, diagnosis& out);
void find_late_arrivals(trace_model const& model, device_rows const& order,
                        host_classifier const& classifier, collective_matching const& matching,
                        diagnosis& out);
void build_timeline(trace_model const& model, std::span<device_unions const> unions,
                    activity_result const& activity, diagnosis& out);
void find_memory_growth(trace_model const& model, diagnosis& out);

/// What the diagnosis's result tables share (diagnose_results.cpp): a table with its name,
/// title and views ("(none)" when empty), the input, rank and device cells of a device, and
/// context events.
[[nodiscard]] output::result_table diagnose_table(std::string name, std::string title,
                                                  unsigned views);
void where_cells(std::vector<output::cell>& cells, device_key const& w, bool input = true);
/// Host or device rows as a nested table (name, kind, thread, start_ns, end_ns).
[[nodiscard]] output::result_table event_rows();
[[nodiscard]] std::vector<output::cell> event_cells(context_event const& e);
[[nodiscard]] output::cell events_cell(std::vector<context_event> const& events);

}  // namespace tracesweep::diagnose_detail

namespace tracesweep {
/// The text view's findings, costliest first (findings.cpp).
[[nodiscard]] output::result_table diagnose_findings(diagnosis const& d);
/// Memory (memory_results.cpp): the staircases, the per-step peaks, the timeline chart.
[[nodiscard]] output::result_table diagnose_memory(diagnosis const& d);
[[nodiscard]] output::result_table diagnose_memory_steps(diagnosis const& d);
[[nodiscard]] output::result_table diagnose_memory_timeline(diagnosis const& d);
/// The ranks the others wait for at collectives (late_arrival_results.cpp).
[[nodiscard]] output::result_table diagnose_late_arrivals(diagnosis const& d);
/// The charts (chart_results.cpp): GPU utilization over time, the idle time and the count of the
/// gaps by duration bin and cause, mean step time per rank.
[[nodiscard]] output::result_table diagnose_timeline(diagnosis const& d);
[[nodiscard]] output::result_table diagnose_gap_time(diagnosis const& d);
[[nodiscard]] output::result_table diagnose_gap_histogram(diagnosis const& d);
[[nodiscard]] output::result_table diagnose_step_times(diagnosis const& d);
}  // namespace tracesweep
