// SPDX-License-Identifier: Apache-2.0
// The job tables as result tables (tables_results.cpp, paddle/summary_tables.cpp,
// tensorboard/tb_results.cpp): a flat table per table for text and CSV (one row per rank and
// item; text in ms or µs, CSV in integer ns) and a JSON table nested per rank (tb: per input).
// The registry (job_table_registry.cpp) picks them.
#pragma once

#include <string>
#include <vector>

#include <tracesweep/analysis/collectives.hpp>
#include <tracesweep/output/result_table.hpp>
#include <tracesweep/reports/job_tables.hpp>

#include "reports/paddle/summary_tables.hpp"

namespace tracesweep::tables {

[[nodiscard]] output::result_table overview_flat(std::vector<rank_overview> const& v);
[[nodiscard]] output::result_table overview_json(std::vector<rank_overview> const& v);
[[nodiscard]] output::result_table model_flat(std::vector<rank_model_summary> const& v);
[[nodiscard]] output::result_table model_json(std::vector<rank_model_summary> const& v);
[[nodiscard]] output::result_table distributed_flat(distributed_summary const& d);
/// Text only: min, median and max of the distributed metrics over the ranks.
[[nodiscard]] output::result_table across_ranks_table(distributed_summary const& d);
[[nodiscard]] output::result_table distributed_json(distributed_summary const& d);
[[nodiscard]] output::result_table kernels_flat(std::vector<rank_kernel_table> const& v);
[[nodiscard]] output::result_table kernels_json(std::vector<rank_kernel_table> const& v);
[[nodiscard]] output::result_table operators_flat(std::vector<rank_operator_table> const& v);
[[nodiscard]] output::result_table operators_json(std::vector<rank_operator_table> const& v);
[[nodiscard]] output::result_table operator_detail_table(
    std::vector<rank_operator_detail> const& v);
[[nodiscard]] output::result_table tb_flat(std::vector<tb_overview> const& v);
[[nodiscard]] output::result_table tb_gpus_flat(std::vector<tb_overview> const& v);
[[nodiscard]] output::result_table tb_kernels_flat(std::vector<tb_overview> const& v);
[[nodiscard]] output::result_table tb_json(std::vector<tb_overview> const& v);
[[nodiscard]] output::result_table tb_operators_flat(std::vector<tb_operator_table> const& v);
[[nodiscard]] output::result_table tb_operators_json(std::vector<tb_operator_table> const& v);
/// collectives and collective_ranks for every format (collective_results.cpp), and the stderr
/// notes of `table`: no NCCL kernels, one GPU only, counts that disagree across GPUs.
[[nodiscard]] output::result_table collectives_table(std::vector<collective_summary> const& rows);
[[nodiscard]] output::result_table collective_ranks_table(collective_matching const& m);
[[nodiscard]] std::vector<std::string> collective_notes(std::string const& table,
                                                        collective_matching const& m);

}  // namespace tracesweep::tables
