// SPDX-License-Identifier: Apache-2.0
// nvtx_kern_sum → result tables (nsys-style: per input in text, one CSV, JSON).
#include <tracesweep/reports/nsys/nvtx_kernels.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

result_table nvtx_kernel_columns(unsigned views) {
  auto t = stats::report_table("nvtx_kern_sum", views);
  t.add("NVTX Range", value_type::string);
  t.add("Style", value_type::string);
  for (auto const* n : {"PID", "TID", "NVTX Inst", "Kern Inst"}) t.add(n, value_type::integer);
  auto const integer = value_type::integer, real = value_type::real;
  for (auto const& [name, type] : {std::pair{"Total Time (ns)", integer},
                                   {"Avg (ns)", real},
                                   {"Med (ns)", real},
                                   {"Min (ns)", integer},
                                   {"Max (ns)", integer},
                                   {"StdDev (ns)", real}})
    stats::add_number(t, name, type, "ns");
  t.add("Kernel Name", value_type::string).symbol = true;
  return t;
}

std::vector<cell> nvtx_kernel_cells(nvtx_kernel_row const& r) {
  return {r.range,
          r.style,
          std::int64_t{r.pid},
          r.tid,
          r.range_instances,
          r.kernel_instances,
          r.total,
          r.avg,
          r.median,
          r.min,
          r.max,
          r.stddev,
          r.kernel};
}

}  // namespace

output::result_set nvtx_kern_sum_results(std::vector<nvtx_kernel_table> tables) {
  return stats::report_per_input(
      std::move(tables), "nvtx_kern_sum", "NVTX Range Kernel Summary",
      "(no rows: no kernel launched inside an NVTX range, or none the filters kept)",
      nvtx_kernel_columns, nvtx_kernel_cells);
}

}  // namespace tracesweep
