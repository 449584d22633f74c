// SPDX-License-Identifier: Apache-2.0
// The job-level tables (overview, model, distributed, kernels, operators, tb, tb operators) as
// result tables: framed text grids with units in the header, CSV tables (every *_ns an integer ns)
// and JSON per rank.
#pragma once

#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/tables/device_summary.hpp>
#include <tracesweep/tables/distributed.hpp>
#include <tracesweep/tables/kernel_table.hpp>
#include <tracesweep/tables/memory_table.hpp>
#include <tracesweep/tables/model_summary.hpp>
#include <tracesweep/tables/operator_detail.hpp>
#include <tracesweep/tables/operator_table.hpp>
#include <tracesweep/tables/overview.hpp>
#include <tracesweep/tables/perf_summary.hpp>
#include <tracesweep/tables/tb_operators.hpp>
#include <tracesweep/tables/tb_overview.hpp>
#include <tracesweep/tables/user_range_summary.hpp>

namespace tracesweep {

/// What `tracesweep overview` computed; tables not asked for stay empty / unset.
struct job_tables {
  bool has_overview = false, has_model = false, has_distributed = false, has_kernels = false;
  bool has_tb = false;
  bool has_operators = false, has_tb_operators = false;  ///< only when asked for by name
  bool has_operator_detail = false;                      ///< --op-detail
  bool has_device = false, has_memcpy = false, has_userdefined = false, has_perf = false;
  bool has_memory = false;
  std::vector<rank_overview> overview;
  std::vector<rank_model_summary> model;
  distributed_summary distributed;
  std::vector<rank_kernel_table> kernels;
  std::vector<tb_overview> tb;
  std::vector<rank_operator_table> operators;
  std::vector<tb_operator_table> tb_operators;
  std::vector<rank_operator_detail> operator_detail;
  std::vector<rank_device_summary> device;
  std::vector<rank_user_ranges> memcpy, userdefined;
  std::vector<rank_perf> perf;
  memory_tables memory;
};

/// Every table present in `t`. Text and CSV: overview, model, distributed (and across_ranks in
/// text), kernels, operators, operator_detail, tb, tb_gpus (text), tb_kernels, tb_operators; JSON:
/// overview, model, distributed, kernels, operators, operator_detail (flat rows), tb and
/// tb_operators, nested per rank (tb, tb_operators: per input; tb_operators in the plugin's
/// integer µs under the plugin's names); device, memcpy, userdefined and perf in every format
/// when computed; memory (when asked for): memory, memory_ops, memory_steps, memory_timeline in
/// every format (memory_results).
[[nodiscard]] output::result_set job_results(job_tables const& t);

}  // namespace tracesweep
