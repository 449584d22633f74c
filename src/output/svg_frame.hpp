// SPDX-License-Identifier: Apache-2.0
// What the HTML page's charts share: the chart's data read from its table, scales and ticks of
// the axes, the plot frame, the legend, and the SVG that opens every chart (svg_charts.cpp); the
// bar charts draw on them (svg_bar_chart.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output::html_page {

/// An SVG coordinate.
[[nodiscard]] std::string px(double v);

/// How an axis shows values of a column's unit: value / div, in `unit`, ticks ending in `suffix`.
struct scale {
  double div = 1;
  std::string unit;
  std::string suffix;
};

/// Ticks over [lo, hi] (in axis units) at a step of 1, 2, 2.5 or 5 × 10^k, about `target` of them.
struct ticks {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> at;
};

struct series {
  std::string name;   ///< as text shows the series cell ("" without a series column)
  std::string label;  ///< in the legend: the name, after the column's label when a number
  std::string colour;
};

/// What a chart reads: its columns, its series (in order of first row) and each row's series.
struct chart_data {
  column const* x = nullptr;
  column const* y = nullptr;
  std::size_t xi = 0, yi = 0;
  std::vector<series> all;
  std::vector<std::size_t> row_series;
};

constexpr double svg_width = 960;
constexpr double char_width = 6.6;  // of 11 px text, generous: labels are sized by it
constexpr double legend_row = 18;

/// The plot area inside the SVG and the mapping of axis values onto it.
struct frame {
  double left = 0, top = 0, width = 0, height = 0;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  [[nodiscard]] double x(double v) const {
    return left + (x_hi > x_lo ? (v - x_lo) / (x_hi - x_lo) : 0.5) * width;
  }
  [[nodiscard]] double y(double v) const {
    return top + height - (y_hi > y_lo ? (v - y_lo) / (y_hi - y_lo) : 0.5) * height;
  }
};

/// The legend's rows: entries laid left to right, wrapping at the SVG's width.
struct legend_layout {
  std::vector<std::pair<double, double>> at;  ///< (x, row) of each entry
  int rows = 0;
};

/// What a chart's SVG opens with: its plot area, legend and y axis.
struct chart_frame {
  frame const& f;
  legend_layout const& legend;
  ticks const& yt;
  scale const& ys;
};

/// The scale of values in `unit` whose magnitude is about `m`.
[[nodiscard]] scale scale_for(std::string const& unit, double m);
/// Ticks over [lo, hi]; `extend` widens the range to whole steps; `integral`: steps of at least 1.
[[nodiscard]] ticks make_ticks(double lo, double hi, int target, bool extend, bool integral);
/// An axis title: `label` (else the column's bare label) and the axis unit.
[[nodiscard]] std::string axis_title(std::string const& label, column const& c,
                                     std::string const& unit);
[[nodiscard]] std::optional<double> number(cell const& c);
[[nodiscard]] bool numeric(column const& c);
[[nodiscard]] legend_layout lay_out_legend(std::vector<series> const& all, double left);
/// The plot area: under the legend, right of the y tick labels, over the y ticks' range.
[[nodiscard]] frame plot_frame(legend_layout const& legend, ticks const& yt, scale const& ys);
/// Opens a chart's SVG of `height`: the legend and the y axis.
void open_chart(std::string& o, result_table const& t, chart_data const& c, chart_frame const& cf,
                double height);
void write_x_title(std::string& o, frame const& f, double y, std::string const& title);

/// A bar chart, grouped or stacked (svg_bar_chart.cpp).
void write_bar_chart(std::string& o, result_table const& t, chart_data const& c);

}  // namespace tracesweep::output::html_page
