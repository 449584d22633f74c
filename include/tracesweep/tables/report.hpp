// SPDX-License-Identifier: Apache-2.0
// Writes the job-level tables (overview, model, distributed, kernels, tb) as aligned text with
// units in the header, JSON (every *_ns an integer) or CSV (one table at a time).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <tracesweep/output_format.hpp>
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

/// Writes every table present in `t`. CSV needs exactly one table (`table`: overview, model,
/// distributed, kernels, tb, tb_kernels); an unknown or missing name throws usage_error.
void write_job_tables(job_tables const& t, output_format format, std::string const& table,
                      std::ostream& out);

}  // namespace tracesweep
