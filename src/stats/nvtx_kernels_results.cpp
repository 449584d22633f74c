// SPDX-License-Identifier: Apache-2.0
// nvtx_kern_sum → result tables (nsys-style: per input in text, one CSV, JSON).
#include <tracesweep/nvtx_kernels.hpp>

#include <utility>

#include "stats/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

result_table columns(unsigned views) {
  result_table t;
  t.name = "nvtx_kern_sum";
  t.views = views;
  t.add("NVTX Range", value_type::string);
  t.add("Style", value_type::string);
  for (auto const* n : {"PID", "TID", "NVTX Inst", "Kern Inst"}) t.add(n, value_type::integer);
  auto ns = [&](char const* name, value_type type) {
    auto& c = t.add(name, type, "ns");
    c.fixed = true;
    c.thousands = true;
    if (type == value_type::real) c.decimals = 1;
  };
  ns("Total Time (ns)", value_type::integer);
  ns("Avg (ns)", value_type::real);
  ns("Med (ns)", value_type::real);
  ns("Min (ns)", value_type::integer);
  ns("Max (ns)", value_type::integer);
  ns("StdDev (ns)", value_type::real);
  t.add("Kernel Name", value_type::string);
  return t;
}

void add_rows(result_table& t, nvtx_kernel_table const& g, bool several) {
  for (auto const& r : g.rows) {
    std::vector<cell> c{r.range,
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
    if (several) c.emplace_back(g.source);
    t.add_row(std::move(c));
  }
}

}  // namespace

output::result_set nvtx_kern_sum_results(std::vector<nvtx_kernel_table> const& tables) {
  return stats::report_per_input(
      tables, "nvtx_kern_sum", "NVTX Range Kernel Summary",
      "(no rows: no kernel launched inside an NVTX range, or none the filters kept)", columns,
      add_rows);
}

}  // namespace tracesweep
