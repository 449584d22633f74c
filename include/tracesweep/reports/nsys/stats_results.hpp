// SPDX-License-Identifier: Apache-2.0
// nsys stats report tables as result tables, printed as nsys prints them: text (one titled table
// per input, thousands separators), CSV (nsys column names; a trailing File column when there
// are several tables) or JSON (an array of {report, source, rows}).
#pragma once

#include <vector>

#include <tracesweep/output/result_table.hpp>
#include <tracesweep/reports/nsys/stats_reports.hpp>

namespace tracesweep {

[[nodiscard]] output::result_set stats_results(std::vector<stats_table> tables);

}  // namespace tracesweep
