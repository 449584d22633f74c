// SPDX-License-Identifier: Apache-2.0
// The job-level tables (overview, model, distributed, kernels, tb) as result tables: framed text
// grids with units in the header, CSV tables (every *_ns an integer ns) and JSON per rank.
#pragma once

#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/tables/distributed.hpp>
#include <tracesweep/tables/kernel_table.hpp>
#include <tracesweep/tables/model_summary.hpp>
#include <tracesweep/tables/overview.hpp>
#include <tracesweep/tables/tb_overview.hpp>

namespace tracesweep {

/// What `tracesweep overview` computed; tables not asked for stay empty / unset.
struct job_tables {
  bool has_overview = false, has_model = false, has_distributed = false, has_kernels = false;
  bool has_tb = false;
  std::vector<rank_overview> overview;
  std::vector<rank_model_summary> model;
  distributed_summary distributed;
  std::vector<rank_kernel_table> kernels;
  std::vector<tb_overview> tb;
};

/// Every table present in `t`. Text and CSV: overview, model, distributed (and across_ranks in
/// text), kernels, tb, tb_gpus (text), tb_kernels; JSON: overview, model, distributed, kernels
/// and tb, nested per rank (tb: per input).
[[nodiscard]] output::result_set job_results(job_tables const& t);

}  // namespace tracesweep
