// SPDX-License-Identifier: Apache-2.0
// Memory, from the allocator's records (event_table::memory: Kineto's `[memory]` events,
// Paddle's memory events, nsys memory usage): per (rank, device) the peak allocated and reserved
// totals (Paddle's Memory Summary "Peak Allocated / Reserved Memory"); per (rank, device, pool,
// op) the allocations and frees and the increase they leave (Paddle's rows; key_averages'
// self_*_memory_usage), each event charged to the innermost operator around it on its thread; the
// allocated total over time in bins, and its peak per step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

/// One (rank, device) with memory events; device -1 is host (CPU) memory.
struct memory_device_row {
  std::int32_t rank = 0;
  std::int32_t device = -1;
  std::int64_t events = 0;
  std::int64_t peak_allocated = 0;  ///< the largest Total Allocated an event reports
  std::int64_t peak_reserved = 0;   ///< the largest Total Reserved an event reports
};

/// The name memory_op_row carries for events that no host op encloses.
inline constexpr std::string_view memory_outside_ops = "(outside ops)";

/// The events of one pool charged to one op name on one (rank, device). An event is charged to
/// the innermost operator (is_operator_row: so a Paddle OperatorInner stage's events go to its
/// Operator, as Paddle's Memory Summary does) of its input and thread that contains its time
/// (start ≤ t ≤ end): the one starting last, of those the one ending first, then the later row.
struct memory_op_row {
  std::int32_t rank = 0;
  std::int32_t device = -1;
  memory_pool pool = memory_pool::allocated;  ///< Paddle's Type: Allocated or Reserved
  std::string name;
  std::int64_t allocations = 0, frees = 0;            ///< events with bytes > 0 / < 0
  std::int64_t allocated_bytes = 0, freed_bytes = 0;  ///< Σ bytes of each, both ≥ 0
  [[nodiscard]] std::int64_t increase() const noexcept { return allocated_bytes - freed_bytes; }
};

/// A time window (a step) of a rank.
struct memory_window {
  std::string name;
  std::int64_t start_ns = 0, end_ns = 0;
};

/// The peak allocated total of one (rank, device) in one step: the largest Total Allocated of
/// the events with start ≤ t < end, and the total carried in from the last event before the
/// step. A step before the device's first event has no row.
struct memory_step_row {
  std::int32_t rank = 0;
  std::int32_t device = -1;
  std::int32_t step = 0;  ///< index among the rank's windows
  std::string step_name;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t peak_allocated = 0;
};

/// The allocated and reserved totals of one (rank, device) over [start, end): the largest an
/// event in it reports, and the total carried in from the last event before it.
struct memory_timeline_bin {
  std::int32_t rank = 0;
  std::int32_t device = -1;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t peak_allocated = 0, peak_reserved = 0;
};

struct memory_tables {
  std::vector<memory_device_row> devices;  ///< by (rank, device)
  std::vector<memory_op_row> ops;      ///< by (rank, device, pool), then increase descending, name
  std::vector<memory_step_row> steps;  ///< by (rank, device, step)
  std::vector<memory_timeline_bin> timeline;  ///< by (rank, device, start)
};

/// Memory events sorted per (rank, device) by (time, table order): event_table::memory indices.
struct memory_series {
  std::int32_t rank = 0;
  std::int32_t device = -1;
  std::vector<std::size_t> events;
};
[[nodiscard]] std::vector<memory_series> memory_series_of(event_table const& table);

/// Step peaks of every series, with the windows of each rank index (model.ranks() order).
[[nodiscard]] std::vector<memory_step_row> memory_step_peaks(
    trace_model const& model, std::span<memory_series const> series,
    std::span<std::vector<memory_window> const> windows);

/// The timeline bins of every series: each (rank, device)'s span (first to last event) split
/// into at most `bins` equal bins.
[[nodiscard]] std::vector<memory_timeline_bin> memory_timeline(
    event_table const& table, std::span<memory_series const> series, std::size_t bins);

/// Every memory table; steps are the model's profiler steps; the timeline splits each
/// (rank, device)'s span (first to last event) into at most `timeline_bins` equal bins.
[[nodiscard]] memory_tables compute_memory_tables(trace_model const& model,
                                                  std::size_t timeline_bins = 200);

/// The memory tables as result tables, in text, CSV, JSON and HTML: memory (per device),
/// memory_ops, memory_steps, memory_timeline (HTML: a line chart of the allocated total per
/// device). Bytes are integers.
[[nodiscard]] std::vector<output::result_table> memory_results(memory_tables const& m);

/// The result-table names memory_results() returns (each a `--table` value of overview).
inline constexpr std::string_view memory_table_names[] = {"memory", "memory_ops", "memory_steps",
                                                          "memory_timeline"};

}  // namespace tracesweep
