// SPDX-License-Identifier: Apache-2.0
// nsys's nvtx_pushpop_trace: every NVTX push/pop range (or user annotation) with its place in
// its thread's tree of ranges: the tightest enclosing range as parent, the level, the direct
// children and their total duration, and the chain of range ids from the root. Rows are made
// from the event table as they are written: the report keeps 48 bytes a range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep {

struct nvtx_pushpop_row {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t child_duration = 0;  ///< Σ (end − start) of the direct children
  std::string name;                 ///< "<domain>:<text>", the domain empty when unnamed
  std::int64_t pid = 0;             ///< the process id (input_info::process_id)
  std::int64_t tid = 0;
  std::int64_t level = 0;  ///< 0 for a range no other range of its thread encloses
  std::int64_t children = 0;
  std::int64_t id = 0;       ///< nsys: the NVTX_EVENTS rowid; otherwise see compute_…
  std::int64_t parent = -1;  ///< the parent's id, -1 for none
  std::string stack;         ///< ":<root id>:…:<id>"
};

/// A range as the report keeps it until written: its event-table row and its place in its
/// thread's tree. Its name and stack are made when it is written (nvtx_pushpop_row_of).
struct nvtx_pushpop_range {
  std::size_t row = 0;
  std::int64_t id = 0;
  std::int64_t parent = -1;  ///< the parent's index in nvtx_pushpop_trace::ranges, -1 for none
  std::int64_t level = 0;
  std::int64_t children = 0;
  std::int64_t child_duration = 0;
};

struct nvtx_pushpop_table {
  std::string source;
  std::vector<std::size_t>
      rows;  ///< indices into nvtx_pushpop_trace::ranges, by start, duration, then id
};

/// The report of a job: every range (a parent before its children), the output tables, and the
/// event table the rows are made from, which must outlive the result set made of it.
struct nvtx_pushpop_trace {
  event_table const* events = nullptr;
  std::vector<nvtx_pushpop_range> ranges;
  std::vector<nvtx_pushpop_table> tables;
};

/// Range `k` of `trace` as the report prints it.
[[nodiscard]] nvtx_pushpop_row nvtx_pushpop_row_of(nvtx_pushpop_trace const& trace, std::size_t k);

/// One table per input (or one over all of them with `merge`). A range's parent is the range
/// of the same (input, rank, thread) that encloses it (starts at or before it and ends at or
/// after it) most tightly: the least (its start − parent start) + (parent end − its end). Only
/// ranges before it in (start, −end, table order) count, so of two identical ranges the first
/// is the parent of the second (nsys makes each the other's parent and prints neither); of
/// equally tight ones the last in that order wins.
/// Ids are event_table::range_sources ids where the reader recorded them, otherwise the range's
/// 1-based position among its input's push/pop ranges in table order.
[[nodiscard]] nvtx_pushpop_trace compute_nvtx_pushpop_trace(trace_model const& model, bool merge);

/// Columns: Start (ns), End (ns), Duration (ns), DurChild (ns), DurNonChild (ns), Name, PID, TID,
/// Lvl, NumChild, RangeId, ParentId (empty for a root), RangeStack, NameTree ("--" per level,
/// then the name).
[[nodiscard]] output::result_set nvtx_pushpop_trace_results(nvtx_pushpop_trace trace);

}  // namespace tracesweep
