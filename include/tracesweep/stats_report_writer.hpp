// SPDX-License-Identifier: Apache-2.0
// Writes `nsys stats`-style report tables as nsys prints them: text (titled, aligned, thousands
// separators), CSV (nsys column names; a trailing File column when several tables are written)
// or JSON.
#pragma once

#include <ostream>
#include <vector>

#include <tracesweep/output_format.hpp>
#include <tracesweep/stats_reports.hpp>

namespace tracesweep {

void write_stats_tables(std::vector<stats_table> const& tables, output_format format,
                        std::ostream& out);

}  // namespace tracesweep
