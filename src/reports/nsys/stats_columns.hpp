// SPDX-License-Identifier: Apache-2.0
// The printed columns of each nsys stats report (headers exactly as nsys prints them) and how a
// cell is rounded (stats_results.cpp turns them into result table columns).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/reports/nsys/stats_reports.hpp>

namespace tracesweep::stats {

enum class field {
  time_percent,
  total,
  count,
  avg,
  median,
  min,
  max,
  stddev,
  style,
  grid,
  block,
  name
};
enum class cell { decimal1, integer, megabytes, text };

struct column {
  std::string_view header;
  field source;
  cell format;
};

[[nodiscard]] std::vector<column> columns_of(stats_report r);

}  // namespace tracesweep::stats
