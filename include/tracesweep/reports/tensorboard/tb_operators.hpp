// SPDX-License-Identifier: Apache-2.0
// The TensorBoard profiler plugin's operator view (torch-tb-profiler), per input: per operator
// name its calls and device self / device total / host self / host total durations, with the
// plugin's rules: a per-thread tree of the `Operator` / `cpu_op` rows (steps included as nodes),
// runtime calls (`cuda_runtime` / `Runtime`) attached to their innermost enclosing node, devices
// rows (kernel, memcpy, memset) to their runtime call by correlation; an operator whose only child
// is an operator of the same name absorbs it (its children and runtime calls replace its own);
// host self = duration − children − its runtime calls; DataLoader `__next__`, DataPipe,
// `Optimizer.*` and (Distributed)DataParallel.forward rows are not listed.
// The plugin attaches runtime calls by external id, tracesweep by time (the same calls on the
// plugin's own samples); a range that overlaps the end of its parent stays in the tree here, the
// plugin drops it.
#pragma once

#include <cstdint>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/operator_table.hpp>

namespace tracesweep {

struct tb_operator_table {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  /// name, calls and the host / device totals and selves (ns); the other fields stay zero.
  std::vector<operator_row> rows;
};

/// One entry per input file, rows sorted by `key` (the plugin sorts by device self).
[[nodiscard]] std::vector<tb_operator_table> compute_tb_operators(
    trace_model const& model, backend& be, operator_sort key = operator_sort::device_self);

}  // namespace tracesweep
