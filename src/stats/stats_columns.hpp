// SPDX-License-Identifier: Apache-2.0
// The printed columns of each nsys stats report (headers exactly as nsys prints them) and how a
// cell is rounded; shared by the text, CSV and JSON writers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/stats_reports.hpp>

namespace tracesweep::stats {

enum class field { time_percent, total, count, avg, median, min, max, stddev, style, name };
enum class cell { decimal1, integer, megabytes, text };

struct column {
  std::string_view header;
  field source;
  cell format;
};

[[nodiscard]] std::vector<column> columns_of(stats_report r);

/// The cell as nsys prints it: 1 decimal for Time (%), Avg, Med, StdDev; integers for the
/// rest; MB (10^6 B) with 3 decimals for sizes. `thousands` adds "," separators (text output).
[[nodiscard]] std::string format_cell(stats_row const& row, column const& c, bool thousands);

/// Whether a column holds a number (JSON writes it unquoted, text aligns it right).
[[nodiscard]] inline bool is_numeric(column const& c) {
  return c.format != cell::text;
}

}  // namespace tracesweep::stats
