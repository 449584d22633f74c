// SPDX-License-Identifier: Apache-2.0
// The HTML page's charts: a table's plot (see result_table::plot) as inline SVG, line or bars
// (grouped or stacked), with axes, ticks, axis titles with units and a legend.
#pragma once

#include <string>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output::html_page {

/// Appends the chart of `t` to `o`, or one line saying why it is left out.
void write_chart(std::string& o, result_table const& t);

}  // namespace tracesweep::output::html_page
