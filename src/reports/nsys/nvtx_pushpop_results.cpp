// SPDX-License-Identifier: Apache-2.0
// nvtx_pushpop_trace → result tables (nsys-style: per input in text, one CSV, JSON).
#include <tracesweep/reports/nsys/nvtx_pushpop.hpp>

#include <memory>
#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

result_table pushpop_columns(unsigned views) {
  auto t = stats::report_table("nvtx_pushpop_trace", views);
  for (auto const* name :
       {"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)"})
    stats::add_number(t, name, value_type::integer, "ns");
  t.add("Name", value_type::string);
  for (auto const* name : {"PID", "TID", "Lvl", "NumChild", "RangeId", "ParentId"})
    t.add(name, value_type::integer);
  t.add("RangeStack", value_type::string);
  t.add("NameTree", value_type::string);
  return t;
}

std::vector<cell> cells_of(nvtx_pushpop_row const& r) {
  auto const duration = r.end_ns - r.start_ns;
  std::string tree(static_cast<std::size_t>(2 * r.level), '-');
  tree += r.name;
  return {r.start_ns,
          r.end_ns,
          duration,
          r.child_duration,
          duration - r.child_duration,
          r.name,
          std::int64_t{r.pid},
          r.tid,
          r.level,
          r.children,
          r.id,
          r.parent < 0 ? cell() : cell(r.parent),
          r.stack,
          std::move(tree)};
}

}  // namespace

output::result_set nvtx_pushpop_trace_results(nvtx_pushpop_trace trace) {
  auto tables = std::move(trace.tables);
  auto const kept = std::make_shared<nvtx_pushpop_trace const>(std::move(trace));
  return stats::report_per_input(
      std::move(tables), "nvtx_pushpop_trace", "NVTX Push/Pop Range Trace",
      "(no rows: no NVTX push/pop range in the input, or none the filters kept)", pushpop_columns,
      [kept](std::size_t k) { return cells_of(nvtx_pushpop_row_of(*kept, k)); });
}

}  // namespace tracesweep
