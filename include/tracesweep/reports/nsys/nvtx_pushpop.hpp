// SPDX-License-Identifier: Apache-2.0
// nsys's nvtx_pushpop_trace: every NVTX push/pop range (or user annotation) with its place in
// its thread's tree of ranges: the tightest enclosing range as parent, the level, the direct
// children and their total duration, and the chain of range ids from the root.
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

struct nvtx_pushpop_table {
  std::string source;
  std::vector<nvtx_pushpop_row> rows;  ///< by start, duration, then id
};

/// One table per input (or one over all of them with `merge`). A range's parent is the range
/// of the same (input, rank, thread) that encloses it (starts at or before it and ends at or
/// after it) most tightly: the least (its start − parent start) + (parent end − its end). Only
/// ranges before it in (start, −end, table order) count, so of two identical ranges the first
/// is the parent of the second (nsys makes each the other's parent and prints neither); of
/// equally tight ones the last in that order wins.
/// Ids are event_table::range_sources ids where the reader recorded them, otherwise the range's
/// 1-based position among its input's push/pop ranges in table order.
[[nodiscard]] std::vector<nvtx_pushpop_table> compute_nvtx_pushpop_trace(trace_model const& model,
                                                                         bool merge);

/// Columns: Start (ns), End (ns), Duration (ns), DurChild (ns), DurNonChild (ns), Name, PID, TID,
/// Lvl, NumChild, RangeId, ParentId (empty for a root), RangeStack, NameTree ("--" per level,
/// then the name).
[[nodiscard]] output::result_set nvtx_pushpop_trace_results(std::vector<nvtx_pushpop_table> tables);

}  // namespace tracesweep
