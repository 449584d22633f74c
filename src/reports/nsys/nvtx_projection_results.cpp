// SPDX-License-Identifier: Apache-2.0
// nvtx_gpu_proj_sum → result tables (nsys-style: per input in text, one CSV, JSON).
#include <tracesweep/reports/nsys/nvtx_projection.hpp>

#include <utility>

#include "reports/nsys/per_input_results.hpp"

namespace tracesweep {

namespace {

using output::cell;
using output::result_table;
using output::value_type;

result_table projection_columns(unsigned views) {
  auto t = stats::report_table("nvtx_gpu_proj_sum", views);
  t.add("Range", value_type::string);
  t.add("Style", value_type::string);
  struct number {
    char const* name;
    value_type type;
    char const* unit;
  };
  auto const integer = value_type::integer, real = value_type::real;
  for (auto const& [name, type, unit] : {number{"Total Proj Time (ns)", integer, "ns"},
                                         {"Total Range Time (ns)", integer, "ns"},
                                         {"Range Instances", integer, ""},
                                         {"Proj Avg (ns)", real, "ns"},
                                         {"Proj Med (ns)", real, "ns"},
                                         {"Proj Min (ns)", integer, "ns"},
                                         {"Proj Max (ns)", integer, "ns"},
                                         {"Proj StdDev (ns)", real, "ns"},
                                         {"Total GPU Ops", integer, ""},
                                         {"Avg GPU Ops", real, ""},
                                         {"Avg Range Lvl", real, ""},
                                         {"Avg Num Child", real, ""}})
    stats::add_number(t, name, type, unit);
  return t;
}

std::vector<cell> projection_cells(nvtx_projection_row const& r) {
  return {r.range,     r.style,       r.total_projected,  r.total_range,
          r.instances, r.avg,         r.median,           r.min,
          r.max,       r.stddev,      r.total_operations, r.avg_operations,
          r.avg_level, r.avg_children};
}

}  // namespace

output::result_set nvtx_gpu_proj_sum_results(std::vector<nvtx_projection_table> tables) {
  return stats::report_per_input(
      std::move(tables), "nvtx_gpu_proj_sum", "NVTX GPU Projection Summary",
      "(no rows: no GPU operation launched inside an NVTX range, or none the filters kept)",
      projection_columns, projection_cells);
}

}  // namespace tracesweep
