// SPDX-License-Identifier: Apache-2.0
// The truth of generate --plant collectives as JSON tables named and shaped as overview's
// collectives and collective_ranks tables (their columns that the truth fixes), and what
// diagnose's late_arrivals says.
#pragma once

#include <tracesweep/generator/collective_job.hpp>
#include <tracesweep/output/result_table.hpp>

namespace tracesweep::cli {

[[nodiscard]] output::result_set collective_truth_tables(collective_truth const& truth);

}  // namespace tracesweep::cli
