// SPDX-License-Identifier: Apache-2.0
// A result set shaped like a diagnosis, for the HTML writer's tests: utilization over time (a
// line chart of three devices, chart only), gap durations by cause (stacked bars), step time per
// rank (bars) and a table of hostile strings (markup, ampersands, quotes, invalid UTF-8, a nested
// list, map and rows). Every series has an explicit colour, so a screenshot can be searched for it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::test {

struct html_sample_colour {
  char const* series;
  char const* css;
  unsigned char r, g, b;
};

/// The colours of the sample's series, one per series of every chart, all distinct.
inline std::vector<html_sample_colour> const& html_sample_colours() {
  static std::vector<html_sample_colour> const c = {
      {"rank 0 / GPU 0", "#1f77b4", 0x1f, 0x77, 0xb4},
      {"rank 0 / GPU 1", "#ff7f0e", 0xff, 0x7f, 0x0e},
      {"rank 1 / GPU 0", "#2ca02c", 0x2c, 0xa0, 0x2c},
      {"data loader", "#d62728", 0xd6, 0x27, 0x28},
      {"host sync", "#9467bd", 0x94, 0x67, 0xbd},
      {"launch <gap> & \"more\"", "#8c564b", 0x8c, 0x56, 0x4b},
  };
  return c;
}

/// Bars of the step-time chart (one series, the palette's first colour unless given).
inline constexpr char const* html_sample_step_colour = "#17becf";

inline constexpr std::size_t html_sample_points = 600;  ///< per device of the line chart
inline constexpr std::size_t html_sample_ranks = 8;     ///< bars of the step-time chart
inline constexpr char const* hostile = "<script>alert(1)</script> & \"q\" 'a' \xff end";

/// The stacked bars present: (bin, cause) pairs with a count (some pairs are absent).
inline std::vector<std::pair<std::size_t, std::size_t>> html_sample_gap_cells() {
  std::vector<std::pair<std::size_t, std::size_t>> v;
  for (std::size_t bin = 0; bin < 7; ++bin)
    for (std::size_t cause = 0; cause < 3; ++cause)
      if ((bin + cause) % 4 != 3) v.emplace_back(bin, cause);
  return v;
}

inline output::result_set html_sample() {
  using output::cell, output::value_type;
  auto const& colours = html_sample_colours();
  output::result_set set;

  auto& util = set.tables.emplace_back();
  util.name = "utilization";
  util.title = "Utilization over time";
  util.views = output::html;
  util.add("time_ns", value_type::integer, "ns", "time");
  util.add("device", value_type::string, "", "device");
  util.add("utilization", value_type::real, "fraction", "utilization");
  util.plot = {output::chart_kind::line, "time_ns", "utilization", "device", "", "", {}, true};
  for (std::size_t d = 0; d < 3; ++d) {
    util.plot.colors.emplace_back(colours[d].series, colours[d].css);
    for (std::size_t i = 0; i < html_sample_points; ++i) {
      double const level = 0.85 - 0.3 * static_cast<double>(d);
      double const u = level + 0.08 * std::sin(static_cast<double>(i) / 25.0 + d);
      util.add_row({static_cast<std::int64_t>(i) * 4'000'000, std::string(colours[d].series), u});
    }
  }

  auto& gaps = set.tables.emplace_back();
  gaps.name = "gap_histogram";
  gaps.title = "Gap durations by cause";
  gaps.add("bin", value_type::string, "", "duration");
  gaps.add("cause", value_type::string, "", "cause");
  gaps.add("count", value_type::integer, "", "gaps");
  gaps.plot = {
      output::chart_kind::stacked_bars, "bin", "count", "cause", "gap duration", "gaps", {}, false};
  for (std::size_t c = 3; c < 6; ++c)
    gaps.plot.colors.emplace_back(colours[c].series, colours[c].css);
  gaps.plot.colors.emplace_back("data loader", "url(https://example.com/x)");  // ignored
  char const* bins[] = {"< 10 µs", "10-50 µs",  "50-100 µs", "0.1-1 ms",
                        "1-10 ms", "10-100 ms", "≥ 100 ms"};
  for (auto [bin, cause] : html_sample_gap_cells())
    gaps.add_row({std::string(bins[bin]), std::string(colours[3 + cause].series),
                  static_cast<std::int64_t>(5 + 40 * (7 - bin) + 17 * cause)});

  auto& steps = set.tables.emplace_back();
  steps.name = "step_times";
  steps.title = "Mean step time per rank";
  steps.add("rank", value_type::integer, "", "Rank");
  auto& mean = steps.add("mean_step_ns", value_type::real, "ns", "Mean step (ms)");
  mean.text_unit = "ms";
  mean.decimals = 3;
  steps.plot = {
      output::chart_kind::bars, "rank", "mean_step_ns", "", "rank", "mean step", {}, false};
  steps.plot.colors.emplace_back("", html_sample_step_colour);
  for (std::size_t r = 0; r < html_sample_ranks; ++r)
    steps.add_row({static_cast<std::int64_t>(r), 120e6 + 9e6 * static_cast<double>(r % 3)});

  auto& top = set.tables.emplace_back();
  top.name = "top_gaps";
  top.title = std::string("Top gaps: ") + hostile;
  top.add("kernel", value_type::string, "", "before");
  auto& d = top.add("duration_ns", value_type::integer, "ns", "duration (ms)");
  d.text_unit = "ms";
  d.decimals = 3;
  top.add("host", value_type::nested, "", "host context");
  top.add("ranks", value_type::nested);
  top.add("json_only", value_type::string).views = output::json;
  output::result_table context;
  context.add("range", value_type::string);
  context.add("depth", value_type::integer);
  context.add_row({std::string("forward <Block&>"), std::int64_t{1}});
  context.add_row({std::string("optimizer.step"), std::int64_t{2}});
  output::result_table ranks;
  ranks.shape = output::json_shape::list;
  ranks.add("rank", value_type::integer);
  ranks.add_row({std::int64_t{0}});
  ranks.add_row({std::int64_t{3}});
  top.add_row({std::string(hostile), std::int64_t{12'345'678}, output::nest(context),
               output::nest(ranks), std::string("hidden-in-html")});
  top.add_row({std::string("void gemm<float, 128>(Tile&, int const*)"), std::int64_t{2'000'000},
               cell{}, output::nest(ranks), std::string("hidden-in-html")});
  top.add_row({std::string("caf\xc3\xa9 \xe2\x82\xac"), cell{}, cell{}, cell{},
               std::string("hidden-in-html")});
  return set;
}

}  // namespace tracesweep::test
