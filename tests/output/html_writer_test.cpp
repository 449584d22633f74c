// SPDX-License-Identifier: Apache-2.0
// The HTML writer on hand-made result sets: one self-contained page (nothing fetched, no script),
// everything escaped and valid UTF-8, one SVG per chart with a path per line series and a rect
// per bar, table rows, chart-only tables, empty tables, the html view rule, bad chart hints, long
// line series; and text, CSV and JSON unchanged by a chart hint.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/output/safe_text.hpp>
#include <tracesweep/output/writer.hpp>

#include "output/html_sample.hpp"
#include "output/write_format.hpp"

namespace out = tracesweep::output;
namespace ts = tracesweep::test;
using out::value_type;

namespace html_writer_test {

using tracesweep::test::one;
using tracesweep::test::write;

std::size_t count(std::string_view page, std::string_view what) {
  std::size_t n = 0;
  for (auto at = page.find(what); at != std::string_view::npos; at = page.find(what, at + 1)) ++n;
  return n;
}

/// The part of the page that shows table `name`.
std::string section(std::string const& page, std::string const& name) {
  auto const from = page.find("<section id=\"" + name + "\">");
  if (from == std::string::npos) return {};
  auto const to = page.find("</section>", from);
  return page.substr(from, to - from);
}

TEST(output_html, is_registered) {
  EXPECT_NE(out::find_writer("html"), nullptr);
  EXPECT_EQ(out::writers()[3].name, "html");
}

TEST(output_html, one_self_contained_page) {
  auto const page = write("html", ts::html_sample());
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>\n")) << page.substr(0, 40);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("<title>Utilization over time</title>"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos) << "the page may fetch nothing";
  EXPECT_EQ(count(page, "<style>"), 1u);
  EXPECT_TRUE(page.ends_with("</html>\n"));
  for (auto const* banned : {"http:", "https:", "<script", "<link", "@import", "url(", "<img",
                             "<iframe", "@font-face", "src="})
    EXPECT_EQ(page.find(banned), std::string::npos) << banned;
  EXPECT_TRUE(out::is_valid_utf8(page));
}

TEST(output_html, strings_are_escaped) {
  auto const page = write("html", ts::html_sample());
  auto const top = section(page, "top_gaps");
  ASSERT_FALSE(top.empty());
  std::string const escaped =
      "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39; \xEF\xBF\xBD end";
  EXPECT_EQ(count(top, escaped), 2u) << "in the heading and in the cell";
  EXPECT_NE(top.find("void gemm&lt;float, 128&gt;(Tile&amp;, int const*)"), std::string::npos);
  EXPECT_NE(top.find("caf\xc3\xa9 \xe2\x82\xac"), std::string::npos) << "valid UTF-8 kept";
  // In SVG too: a series named with markup, in the legend and the bars' tooltips.
  auto const gaps = section(page, "gap_histogram");
  EXPECT_NE(gaps.find("launch &lt;gap&gt; &amp; &quot;more&quot;"), std::string::npos);
  EXPECT_EQ(gaps.find("<gap>"), std::string::npos);
}

TEST(output_html, line_chart_one_path_per_series) {
  auto const util = section(write("html", ts::html_sample()), "utilization");
  EXPECT_EQ(count(util, "<svg"), 1u);
  EXPECT_EQ(count(util, "<path class=\"line\""), 3u);
  for (std::size_t d = 0; d < 3; ++d) {
    auto const& c = ts::html_sample_colours()[d];
    EXPECT_NE(util.find(std::string("stroke=\"") + c.css + "\""), std::string::npos) << c.css;
    EXPECT_NE(util.find(std::string(">") + c.series + "</text>"), std::string::npos) << "legend";
  }
  EXPECT_EQ(count(util, "class=\"swatch\""), 3u);
  EXPECT_NE(util.find(">utilization (%)</text>"), std::string::npos) << "y axis in %";
  EXPECT_NE(util.find(">time (ms)</text>"), std::string::npos) << "x axis: ns shown in ms";
  EXPECT_NE(util.find(">100</text>"), std::string::npos);
  EXPECT_EQ(count(util, "<table"), 0u) << "chart only";
}

TEST(output_html, stacked_bars_one_rect_per_value) {
  auto const gaps = section(write("html", ts::html_sample()), "gap_histogram");
  EXPECT_EQ(count(gaps, "<svg"), 1u);
  auto const cells = ts::html_sample_gap_cells();
  EXPECT_EQ(count(gaps, "<rect class=\"bar\""), cells.size());
  for (std::size_t c = 3; c < 6; ++c) {
    auto const& colour = ts::html_sample_colours()[c];
    std::size_t want = 0;
    for (auto [bin, cause] : cells) want += cause == c - 3;
    EXPECT_EQ(count(gaps, std::string("fill=\"") + colour.css + "\">"), want) << colour.css;
  }
  EXPECT_EQ(count(gaps, "class=\"swatch\""), 3u);
  EXPECT_NE(gaps.find(">gap duration</text>"), std::string::npos);
  // The table below the chart: a header row and one row per value.
  EXPECT_EQ(count(gaps, "<table class=\"rows\">"), 1u);
  EXPECT_EQ(count(gaps, "<tr>"), cells.size() + 1);
}

TEST(output_html, bars_one_rect_per_category) {
  auto const steps = section(write("html", ts::html_sample()), "step_times");
  EXPECT_EQ(count(steps, "<svg"), 1u);
  EXPECT_EQ(count(steps, "<rect class=\"bar\""), ts::html_sample_ranks);
  EXPECT_EQ(count(steps, std::string("fill=\"") + ts::html_sample_step_colour + "\">"),
            ts::html_sample_ranks);
  EXPECT_EQ(count(steps, "class=\"swatch\""), 0u) << "one unnamed series: no legend";
  EXPECT_NE(steps.find(">mean step (ms)</text>"), std::string::npos);
  EXPECT_EQ(count(steps, "<tr>"), ts::html_sample_ranks + 1);
  EXPECT_NE(steps.find("<td class=\"num\">138.000</td>"), std::string::npos) << "text's cells";
}

TEST(output_html, tables_show_text_cells_and_units) {
  auto const top = section(write("html", ts::html_sample()), "top_gaps");
  EXPECT_EQ(count(top, "<svg"), 0u);
  EXPECT_EQ(count(top, "<table class=\"rows\">"), 1u);
  EXPECT_EQ(count(top, "<table class=\"nested\">"), 1u) << "nested rows as a small table";
  // Three rows, a header, and the nested table's header and two rows.
  EXPECT_EQ(count(top, "<tr>"), 3u + 1 + 3);
  EXPECT_NE(top.find("<th class=\"num\">duration (ms)</th>"), std::string::npos);
  EXPECT_NE(top.find("<td class=\"num\">12.346</td>"), std::string::npos);
  EXPECT_NE(top.find("<td>0, 3</td>"), std::string::npos) << "a list as text shows it";
  EXPECT_NE(top.find("<td class=\"num\">-</td>"), std::string::npos) << "null as text shows it";
  EXPECT_EQ(top.find("hidden-in-html"), std::string::npos) << "a JSON-only column";
}

TEST(output_html, views_rule_and_column_order) {
  out::result_table t;
  t.name = "t";
  t.title = "T";
  t.add("name", value_type::string).text_last = true;
  t.add("calls", value_type::integer);
  t.add("text_only", value_type::integer).views = out::text;
  t.add("page_only", value_type::integer).views = out::html;
  t.add("total", value_type::integer, "ns");
  t.add_row({std::string("k"), std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}});
  auto json_only = t;
  json_only.name = "json_only";
  json_only.views = out::json;
  out::result_set s;
  s.tables = {t, json_only};
  auto const page = write("html", s);
  EXPECT_NE(page.find("<tr><th class=\"num\">calls</th><th class=\"num\">page_only</th>"
                      "<th class=\"num\">total (ms)</th><th>name</th></tr>"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("json_only"), std::string::npos);
  EXPECT_EQ(write("html", s, "t"), page);
  EXPECT_THROW((void)write("html", s, "json_only"), tracesweep::unknown_table_error);
}

TEST(output_html, empty_tables_say_none_without_a_chart) {
  auto s = ts::html_sample();
  for (auto& t : s.tables) t.rows.clear();
  s.tables[1].text_empty = "(no gaps)";
  auto const page = write("html", s);
  EXPECT_EQ(count(page, "<svg"), 0u);
  EXPECT_EQ(count(page, "<table"), 0u);
  EXPECT_EQ(count(page, "<p class=\"none\">none</p>"), 3u);
  EXPECT_EQ(count(page, "<p class=\"none\">(no gaps)</p>"), 1u);
  out::result_set nothing;
  auto const bare = write("html", nothing);
  EXPECT_NE(bare.find("<title>tracesweep report</title>"), std::string::npos);
  EXPECT_TRUE(bare.ends_with("</html>\n"));
}

TEST(output_html, a_bad_chart_hint_leaves_a_note_and_the_table) {
  auto s = ts::html_sample();
  auto& steps = s.tables[2];
  steps.plot.y = "nope";
  auto util = s.tables[0];
  util.name = "text_x";
  util.plot.kind = out::chart_kind::line;
  util.plot.x = "device";  // a string: not an x of a line chart
  s.tables.push_back(util);
  auto const page = write("html", s);
  auto const bad = section(page, "step_times");
  EXPECT_EQ(count(bad, "<svg"), 0u);
  EXPECT_NE(bad.find("chart left out: no column &quot;nope&quot; for y"), std::string::npos);
  EXPECT_EQ(count(bad, "<table"), 1u);
  EXPECT_NE(section(page, "text_x").find("is not numeric"), std::string::npos);
}

TEST(output_html, colours_that_could_fetch_are_ignored) {
  auto const page = write("html", ts::html_sample());
  // "data loader" has a good colour first and a url() after it: the good one stays.
  EXPECT_NE(section(page, "gap_histogram").find("fill=\"#d62728\""), std::string::npos);
  out::result_table t;
  t.name = "t";
  t.add("x", value_type::string);
  t.add("y", value_type::integer);
  t.plot = {out::chart_kind::bars, "x", "y", "", "", "", {{"", "url(#evil)"}}, true};
  t.add_row({std::string("a"), std::int64_t{1}});
  auto const page2 = write("html", one(t));
  EXPECT_EQ(page2.find("url("), std::string::npos);
  EXPECT_NE(page2.find("fill=\"#1f77b4\""), std::string::npos) << "the palette's first";
}

TEST(output_html, long_line_series_stay_small) {
  out::result_table t;
  t.name = "util";
  t.add("t", value_type::integer, "ns");
  t.add("device", value_type::integer);
  t.add("u", value_type::real, "fraction");
  t.plot = {out::chart_kind::line, "t", "u", "device", "", "", {}, true};
  std::size_t const n = 10'000;
  for (std::int64_t d = 0; d < 4; ++d)
    for (std::size_t i = 0; i < n; ++i)
      t.add_row({static_cast<std::int64_t>(i) * 2'000'000 + 1'700'000'000'000'000'000, d,
                 (i * 7919 + static_cast<std::size_t>(d)) % 101 / 100.0});
  auto const page = write("html", one(t));
  EXPECT_EQ(count(page, "<path class=\"line\""), 4u);
  EXPECT_LT(page.size(), 4 * n * 6) << "fewer points than rows";
  EXPECT_NE(page.find(">device 0</text>"), std::string::npos) << "numeric series named by column";
  EXPECT_NE(page.find("(s), from 1700000000000000000 ns</text>"), std::string::npos)
      << "far from zero: x from its first value, 20 s in s";
}

TEST(output_html, bars_with_many_long_labels_turn_and_cut_them) {
  out::result_table t;
  t.name = "k";
  t.add("name", value_type::string);
  t.add("total", value_type::integer, "ns");
  t.plot = {out::chart_kind::bars, "name", "total", "", "", "", {}, false};
  for (int k = 0; k < 60; ++k)
    t.add_row({"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<float, " + std::to_string(k) +
                   ">>(Params&)",
               std::int64_t{1'000'000} * (k + 1)});
  auto const page = write("html", one(t));
  EXPECT_EQ(count(page, "<rect class=\"bar\""), 60u);
  EXPECT_EQ(count(page, "text-anchor=\"end\" transform=\"rotate(-90 "), 60u) << "vertical";
  EXPECT_EQ(count(page, "\xE2\x80\xA6"), 60u) << "every label cut";
  EXPECT_NE(page.find("59&gt;&gt;(Params&amp;)</text>"), std::string::npos)
      << "cut in the middle: the distinguishing end kept";
}

TEST(output_html, a_huge_name_is_cut_in_its_cell_with_the_whole_name_in_its_title) {
  out::result_table t;
  t.name = "k";
  t.add("name", value_type::string);
  t.add("calls", value_type::integer);
  std::string const huge = "void k<" + std::string(1 << 20, 'x') + ">(int)";
  std::string const escaped = "void k&lt;" + std::string(1 << 20, 'x') + "&gt;(int)";
  t.add_row({huge, std::int64_t{1}});
  t.add_row({std::string("short"), std::int64_t{2}});
  auto const page = write("html", one(t));
  auto const cell = page.find("<td class=\"long\" title=\"" + escaped + "\">void k&lt;xxx");
  ASSERT_NE(cell, std::string::npos) << "the whole name in the cell's title";
  auto const text_end = page.find("</td>", cell);
  auto const shown = page.substr(page.find("\">", cell) + 2, text_end - page.find("\">", cell) - 2);
  EXPECT_LE(shown.size(), 300u) << "cut to a readable length";
  EXPECT_NE(shown.find("\xE2\x80\xA6"), std::string::npos) << "cut marked";
  EXPECT_TRUE(shown.ends_with("xxx&gt;(int)")) << "its end kept";
  EXPECT_EQ(count(page, escaped), 1u) << "once, in the title";
  EXPECT_NE(page.find("<td>short</td>"), std::string::npos) << "short cells as they were";
}

TEST(output_html, other_formats_ignore_the_chart) {
  auto const with = ts::html_sample();
  auto without = with;
  for (auto& t : without.tables) t.plot = {};
  struct format_view {
    char const* format;
    out::view v;
  };
  for (auto [format, v] : {format_view{"text", out::text}, format_view{"csv", out::flat},
                           format_view{"json", out::json}}) {
    for (auto const& t : with.tables) {
      if (!(t.views & v)) continue;
      auto const got = write(format, with, t.name);
      EXPECT_EQ(got, write(format, without, t.name)) << format << " " << t.name;
      EXPECT_FALSE(got.empty()) << format << " " << t.name;
    }
  }
  EXPECT_EQ(write("text", with), write("text", without));
  EXPECT_EQ(write("json", with), write("json", without));
}

}  // namespace html_writer_test
