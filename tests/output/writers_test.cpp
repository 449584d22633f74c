// SPDX-License-Identifier: Apache-2.0
// The output layer on hand-made result sets: CSV quoting and line ends, JSON escaping, UTF-8
// repair, integers vs doubles and layout, text alignment and hints, nested rows, the registry
// (the HTML writer has its own test, html_writer_test).
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/error.hpp>
#include <tracesweep/output/writer.hpp>

#include "output/write_format.hpp"

namespace writers_test {

namespace out = tracesweep::output;
using out::cell;
using out::value_type;

namespace {

using tracesweep::test::generated;
using tracesweep::test::one;
using tracesweep::test::write;

out::result_table table(std::string name, std::string title) {
  out::result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  return t;
}

/// A table of names and numbers: strings that need quoting and escaping, a big integer, doubles.
out::result_table names() {
  auto t = table("names", "Names");
  t.add("name", value_type::string);
  t.add("count", value_type::integer);
  t.add("share", value_type::real);
  t.add_row({std::string("a,b"), std::int64_t{9'007'199'254'740'993}, 1.0});
  t.add_row({std::string("say \"hi\""), std::int64_t{-5}, 0.1});
  t.add_row({std::string("cr\rlf\nend"), std::int64_t{0}, cell{}});
  return t;
}

/// A list (ranks) and a map (id → name) inside cells.
out::result_table with_nested() {
  auto t = table("inputs", "Inputs");
  t.add("path", value_type::string);
  for (auto const* n : {"ranks", "devices"}) t.add(n, value_type::nested);
  out::result_table ranks;
  ranks.shape = out::json_shape::list;
  ranks.text_separator = ",";
  ranks.add("rank", value_type::integer);
  ranks.add_row({std::int64_t{0}});
  ranks.add_row({std::int64_t{1}});
  out::result_table devices;
  devices.shape = out::json_shape::map;
  devices.text_fold_ranges = true;
  devices.add("id", value_type::integer);
  devices.add("name", value_type::string);
  for (std::int64_t id : {0, 1, 2}) devices.add_row({id, std::string("H100")});
  devices.add_row({std::int64_t{4}, std::string("A100")});
  t.add_row({std::string("x.sqlite"), out::nest(ranks), out::nest(devices)});
  return t;
}

// ---- generated rows --------------------------------------------------------------------------

TEST(output_generated_rows, every_format_writes_them_as_stored_rows) {
  for (auto const& make : {names, with_nested}) {
    auto stored = make();
    stored.spans = {"count", "", "count", "", "", "t", "", "n", "c", "", ""};
    for (auto const* format : {"text", "csv", "json", "html", "perfetto"}) {
      if (std::string(format) == "perfetto" && stored.name != "names") continue;
      std::size_t calls = 0;
      auto const expected = write(format, one(stored));
      EXPECT_EQ(write(format, one(generated(stored, calls))), expected) << format;
      EXPECT_GE(calls, stored.rows.size()) << format;  // each row made as it was written
    }
  }
  // An empty generated table is an empty table.
  std::size_t calls = 0;
  auto empty = names();
  empty.rows.clear();
  empty.text_empty = "(none)";
  for (auto const* format : {"text", "csv", "json", "html"})
    EXPECT_EQ(write(format, one(generated(empty, calls))), write(format, one(empty))) << format;
  EXPECT_EQ(calls, 0u);
}

TEST(output_generated_rows, a_chart_reads_them_too) {
  auto t = table("bins", "Bins");
  t.add("gpu", value_type::string);
  t.add("start_ns", value_type::integer, "ns");
  t.add("busy", value_type::real, "fraction");
  for (std::int64_t b = 0; b < 20; ++b)
    t.add_row({std::string(b % 2 ? "GPU 1" : "GPU 0"), b * 1000, double(b % 5) / 4});
  for (auto kind : {out::chart_kind::line, out::chart_kind::bars}) {
    t.plot = {kind, "start_ns", "busy", "gpu", "time", "busy", {}, false};
    std::size_t calls = 0;
    EXPECT_EQ(write("html", one(generated(t, calls))), write("html", one(t)));
    EXPECT_GE(calls, t.rows.size());
  }
}

// ---- registry --------------------------------------------------------------------------------

TEST(output_registry, lists_and_finds_formats) {
  std::vector<std::string> got;
  for (auto const& w : out::writers()) got.emplace_back(w.name);
  EXPECT_EQ(got, (std::vector<std::string>{"text", "csv", "json", "html", "perfetto"}));
  for (auto const& w : out::writers()) EXPECT_EQ(out::find_writer(w.name), w.write);
  EXPECT_EQ(out::find_writer("xml"), nullptr);
  EXPECT_EQ(out::find_writer(""), nullptr);
}

TEST(output_registry, unknown_table_names_the_valid_ones) {
  out::result_set s;
  s.tables = {names(), with_nested()};
  s.tables[1].views = out::text | out::json;  // not a CSV table, nor on the HTML page
  for (auto const* format : {"text", "csv", "json", "html"}) {
    try {
      (void)write(format, s, "nope");
      ADD_FAILURE() << format << ": no exception";
    } catch (tracesweep::unknown_table_error const& e) {
      EXPECT_EQ(e.table(), "nope");
      bool const one = std::string(format) == "csv" || std::string(format) == "html";
      auto const want =
          one ? std::vector<std::string>{"names"} : std::vector<std::string>{"names", "inputs"};
      EXPECT_EQ(e.valid(), want) << format;
      EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos)
          << "no CLI flag in " << e.what();
    }
  }
}

// ---- CSV -------------------------------------------------------------------------------------

TEST(output_csv, rfc4180_quoting_and_lf_line_ends) {
  EXPECT_EQ(write("csv", one(names())),
            "name,count,share\n"
            "\"a,b\",9007199254740993,1.0\n"
            "\"say \"\"hi\"\"\",-5,0.1\n"
            "\"cr\rlf\nend\",0,\n");
}

TEST(output_csv, writes_the_named_table_or_the_first) {
  out::result_set s;
  s.tables = {names(), with_nested()};
  EXPECT_EQ(write("csv", s).substr(0, 17), "name,count,share\n");
  EXPECT_EQ(write("csv", s, "inputs"),
            "path,ranks,devices\nx.sqlite,0;1,0=H100;1=H100;2=H100;4=A100\n");
}

TEST(output_csv, column_views_and_null_text) {
  auto t = names();
  t.columns[1].views = out::text;  // count: text only
  t.columns[2].flat_null = "-";
  EXPECT_EQ(write("csv", one(t)),
            "name,share\n\"a,b\",1.0\n\"say \"\"hi\"\"\",0.1\n\"cr\rlf\nend\",-\n");
}

TEST(output_csv, lists_and_maps_are_one_field) {
  // Entries joined by ";" (a map's as key=value), quoted as a whole when one holds a comma or a
  // quote, repaired when not UTF-8, and guarded as a whole with csv_safe.
  EXPECT_EQ(write("csv", one(with_nested())),
            "path,ranks,devices\nx.sqlite,0;1,0=H100;1=H100;2=H100;4=A100\n");
  auto t = table("t", "T");
  t.add("names", value_type::nested);
  auto list = [](std::vector<std::string> const& entries) {
    out::result_table l;
    l.shape = out::json_shape::list;
    l.add("name", value_type::string);
    for (auto const& e : entries) l.add_row({e});
    return out::nest(std::move(l));
  };
  t.add_row({list({"f(int, char)", "say \"hi\""})});
  t.add_row({list({"", "b", "c"})});  // nothing is joined before the first text
  t.add_row({list({"caf\xc3\xa9", "a\xff"})});
  t.add_row({list({"=cmd", "x"})});
  t.add_row({list({})});
  EXPECT_EQ(write("csv", one(t)),
            "names\n\"f(int, char);say \"\"hi\"\"\"\nb;c\ncaf\xc3\xa9;a\xef\xbf\xbd\n=cmd;x\n\n");
  out::write_options safe;
  safe.csv_safe = true;
  EXPECT_NE(write("csv", one(t), "", safe).find("\n'=cmd;x\n"), std::string::npos);
}

TEST(output_csv, fixed_decimals_apply_to_data_formats) {
  out::result_table t;
  t.name = "t";
  auto& c = t.add("mb", value_type::real, "MB");
  c.decimals = 3;
  c.fixed = true;
  c.thousands = true;  // text only
  t.add_row({1234.5});
  EXPECT_EQ(write("csv", one(t)), "mb\n1234.500\n");
  EXPECT_EQ(write("json", one(t)), "{\n  \"t\": [\n    {\"mb\": 1234.500}\n  ]\n}\n");
}

// ---- JSON ------------------------------------------------------------------------------------

TEST(output_json, integers_doubles_nulls_and_escapes) {
  EXPECT_EQ(write("json", one(names())),
            "{\n"
            "  \"names\": [\n"
            "    {\"name\": \"a,b\", \"count\": 9007199254740993, \"share\": 1.0},\n"
            "    {\"name\": \"say \\\"hi\\\"\", \"count\": -5, \"share\": 0.1},\n"
            "    {\"name\": \"cr\\rlf\\nend\", \"count\": 0, \"share\": null}\n"
            "  ]\n"
            "}\n");
}

std::string json_name(std::string const& s) {
  out::result_table t;
  t.name = "t";
  t.add("s", value_type::string);
  t.add_row({s});
  auto const doc = write("json", one(t));
  auto const from = doc.find("{\"s\": ") + 6;
  return doc.substr(from, doc.find("}\n", from) - from);
}

TEST(output_json, control_characters_are_escaped) {
  EXPECT_EQ(json_name("q\"b\\t\tn\nb\bf\fx\x01y\x1f"),
            "\"q\\\"b\\\\t\\tn\\nb\\bf\\fx\\u0001y\\u001f\"");
}

TEST(output_json, invalid_utf8_becomes_replacement_characters) {
  EXPECT_EQ(json_name("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");                    // valid: kept
  EXPECT_EQ(json_name("a\xff"), "\"a\\ufffd\"");                                 // never valid
  EXPECT_EQ(json_name("\xc0\x80"), "\"\\ufffd\\ufffd\"");                        // overlong
  EXPECT_EQ(json_name("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");             // surrogate
  EXPECT_EQ(json_name("\xe2\x82"), "\"\\ufffd\\ufffd\"");                        // truncated
  EXPECT_EQ(json_name("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
}

TEST(output_json, doubles_shortest_round_trip) {
  out::result_table t;
  t.name = "t";
  t.add("d", value_type::real);
  for (double d : {3002399751580331.0, 1.0 / 3.0, 1e-7, -0.5, std::nan("")}) t.add_row({d});
  EXPECT_EQ(write("json", one(t)),
            "{\n  \"t\": [\n    {\"d\": 3002399751580331.0},\n    {\"d\": 0.3333333333333333},\n"
            "    {\"d\": 1e-07},\n    {\"d\": -0.5},\n    {\"d\": null}\n  ]\n}\n");
}

TEST(output_json, nested_rows_objects_lists_and_maps) {
  // Per-rank groups with rows, an object, a boolean, an omitted null, a list and a map.
  out::result_table rows;
  rows.name = "rows";
  rows.add("name", value_type::string);
  rows.add("calls", value_type::integer).json_omit_null = true;
  rows.add_row({std::string("k"), std::int64_t{2}});
  rows.add_row({std::string("Others"), cell{}});
  out::result_table stats;
  stats.shape = out::json_shape::object;
  stats.add("ok", value_type::boolean);
  stats.add("empty", value_type::nested);
  out::result_table none;
  stats.add_row({true, out::nest(none)});
  out::result_table groups;
  groups.name = "groups";
  groups.add("rank", value_type::integer);
  groups.add("stats", value_type::nested);
  groups.add("rows", value_type::nested);
  groups.add_row({std::int64_t{0}, out::nest(stats), out::nest(rows)});
  out::result_set s;
  s.tables = {groups, with_nested()};
  EXPECT_EQ(write("json", s),
            "{\n"
            "  \"groups\": [\n"
            "    {\n"
            "      \"rank\": 0,\n"
            "      \"stats\": {\"ok\": true, \"empty\": []},\n"
            "      \"rows\": [\n"
            "        {\"name\": \"k\", \"calls\": 2},\n"
            "        {\"name\": \"Others\"}\n"
            "      ]\n"
            "    }\n"
            "  ],\n"
            "  \"inputs\": [\n"
            "    {\"path\": \"x.sqlite\", \"ranks\": [0,1], \"devices\": "
            "{\"0\":\"H100\",\"1\":\"H100\",\"2\":\"H100\",\"4\":\"A100\"}}\n"
            "  ]\n"
            "}\n");
}

TEST(output_json, bare_document_and_views) {
  out::result_set s;
  s.json_bare = true;
  s.tables = {names()};
  s.tables[0].views = out::json;
  s.tables[0].rows.resize(1);
  EXPECT_EQ(write("json", s),
            "[\n  {\"name\": \"a,b\", \"count\": 9007199254740993, \"share\": 1.0}\n]\n");
  s.tables[0].rows.clear();
  EXPECT_EQ(write("json", s), "[]\n");
  EXPECT_EQ(write("text", s), "");  // no text table
  EXPECT_EQ(write("csv", s), "");
}

// ---- text ------------------------------------------------------------------------------------

TEST(output_text, listing_aligns_and_applies_hints) {
  auto t = names();
  t.columns[0].text_last = true;
  t.columns[1].label = "calls";
  auto& share = t.columns[2];
  share.label = "share (%)";
  share.unit = "fraction";
  share.text_unit = "%";
  share.decimals = 2;
  t.rows.pop_back();
  t.add_row({std::string("third"), std::int64_t{1234567}, cell{}});
  t.text_empty = "(none)";
  EXPECT_EQ(write("text", one(t)),
            "Names (3)\n"
            "             calls  share (%)  name\n"
            "  9007199254740993     100.00  a,b\n"
            "                -5      10.00  say \"hi\"\n"
            "           1234567          -  third\n");
  t.rows.clear();
  EXPECT_EQ(write("text", one(t)), "Names (0)\n  (none)\n");
}

TEST(output_text, units_decimals_and_thousands) {
  out::result_table t;
  t.name = "t";
  t.title = "T";
  t.style = out::text_style::report;
  auto& ms = t.add("time_ns", value_type::integer, "ns", "Time (ms)");
  ms.text_unit = "ms";
  ms.decimals = 3;
  auto& us = t.add("mean_ns", value_type::real, "ns", "Mean (us)");
  us.text_unit = "us";
  us.decimals = 0;  // rounds half to even
  t.add("total", value_type::integer, "ns", "Total").thousands = true;
  auto& hidden = t.add("hidden", value_type::integer);
  hidden.views = out::flat | out::json;
  t.add("name", value_type::string, "", "Name");
  t.add_row({std::int64_t{1'234'567}, 2500.0, std::int64_t{-1'234'567}, std::int64_t{1},
             std::string("a")});
  t.add_row({std::int64_t{5}, 3500.0, std::int64_t{999}, std::int64_t{2}, std::string("bb")});
  EXPECT_EQ(write("text", one(t)),
            "** T\n\n"
            "Time (ms)  Mean (us)       Total  Name\n"
            "---------  ---------  ----------  ----\n"
            "    1.235          2  -1,234,567  a\n"
            "0.0000050          4         999  bb\n");  // 5 ns: never "0.000" (issue 26, item 17)
}

TEST(output_text, grid_frames_and_trims) {
  out::result_table t;
  t.name = "g";
  t.title = "Grid";
  t.style = out::text_style::grid;
  t.add("rank", value_type::integer, "", "Rank");
  t.add("step", value_type::string, "", "Step").text_align = out::align::right;
  t.add("name", value_type::string, "", "Name");
  t.add_row({std::int64_t{0}, std::string("1"), std::string("x")});
  t.add_row({std::int64_t{10}, std::string("average"), std::string("")});
  out::result_set s;
  s.tables = {t, t};
  std::string const one_grid =
      "Grid\n"
      "-------------------\n"
      "Rank     Step  Name\n"
      "-------------------\n"
      "   0        1  x\n"
      "  10  average\n"
      "\n";
  EXPECT_EQ(write("text", s), one_grid + one_grid);
  EXPECT_EQ(write("text", s, "g"), one_grid + one_grid);  // both are named g
}

TEST(output_text, lists_and_maps_in_cells) {
  EXPECT_EQ(write("text", one(with_nested())),
            "Inputs (1)\n"
            "  path      ranks  devices\n"
            "  x.sqlite  0,1    0-2=H100, 4=A100\n");
}

/// A one-column table of kernel names holding `name`, titled and headed by it too.
out::result_set named(std::string const& name) {
  auto t = table("k", name);
  t.add("name", value_type::string).label = name;
  t.add_row({name});
  t.text_empty = name;
  return one(t);
}

TEST(output_text, control_characters_from_the_trace_are_shown_escaped) {
  // ESC[2J clears the screen, OSC 0 sets the title (ended by BEL), CR and LF split rows, and
  // U+009B is a one-character CSI to some terminals.
  std::string const hostile = "a\x1b[2Jb\x1b]0;owned\x07 c\rd\ne\tf\x7f\xc2\x9bg";
  std::string const shown = "a\\x1b[2Jb\\x1b]0;owned\\x07 c\\rd\\ne\\tf\\x7f\\u009bg";
  auto const text = write("text", named(hostile));
  EXPECT_EQ(text, shown + " (1)\n  " + shown + "\n  " + shown + "\n");
  auto empty = named(hostile);
  empty.tables[0].rows.clear();
  EXPECT_EQ(write("text", empty), shown + " (0)\n  " + shown + "\n");
  // Data formats keep the exact string.
  EXPECT_NE(write("csv", named(hostile)).find(hostile), std::string::npos);
  EXPECT_NE(write("json", named(hostile)).find("a\\u001b[2Jb\\u001b]0;owned\\u0007 c\\rd\\n"),
            std::string::npos);
}

TEST(output_text, invalid_utf8_becomes_replacement_characters) {
  auto const text = write("text", named("caf\xc3\xa9 a\xff b\xc0\x80"));
  EXPECT_EQ(text.substr(text.rfind("  ") + 2),
            "caf\xc3\xa9 a\xef\xbf\xbd b\xef\xbf\xbd\xef\xbf\xbd\n");
}

TEST(output_csv, invalid_utf8_becomes_replacement_characters) {
  EXPECT_EQ(write("csv", named("caf\xc3\xa9 a\xff")), "name\ncaf\xc3\xa9 a\xef\xbf\xbd\n");
}

TEST(output_csv, csv_safe_prefixes_formula_looking_text_and_keeps_numbers) {
  auto t = table("t", "T");
  t.add("name", value_type::string);
  t.add("n", value_type::integer);
  t.add("x", value_type::real);
  t.add("text_number", value_type::string);
  for (auto const* name : {"=HYPERLINK(\"http://x\")", "+1+cmd|' /C calc'!A0", "-2-3", "@SUM(A1)"})
    t.add_row({std::string(name), std::int64_t{-5}, -0.25, std::string("-1.5e3")});
  t.add_row({std::string("plain"), std::int64_t{1}, 2.0, std::string("+7")});
  out::write_options safe;
  safe.csv_safe = true;
  EXPECT_EQ(write("csv", one(t), "", safe),
            "name,n,x,text_number\n"
            "\"'=HYPERLINK(\"\"http://x\"\")\",-5,-0.25,-1.5e3\n"
            "'+1+cmd|' /C calc'!A0,-5,-0.25,-1.5e3\n"
            "'-2-3,-5,-0.25,-1.5e3\n"
            "'@SUM(A1),-5,-0.25,-1.5e3\n"
            "plain,1,2.0,+7\n");
  // Off by default: the exact strings.
  EXPECT_NE(write("csv", one(t)).find("\n-2-3,-5"), std::string::npos);
}

}  // namespace

namespace {

TEST(TextWriter, TimestampsFromTheOriginWhichIsPrintedOnce) {
  out::result_set s;
  for (auto const* name : {"first", "second"}) {
    out::result_table t;
    t.name = name;
    t.title = name;
    t.add("start_ns", value_type::integer, "ns", "start (ns)").timestamp = true;
    t.add("other_ns", value_type::integer, "ns");
    t.add_row({cell(std::int64_t{1'000'001'234'567'890}), cell(std::int64_t{7})});
    t.add_row({cell(std::int64_t{999'999'999'999'499}), cell(std::int64_t{8})});
    s.tables.push_back(std::move(t));
  }
  // Without an origin: the numbers as they are.
  EXPECT_NE(write("text", s).find("1000001234567890"), std::string::npos);
  s.time_origin_ns = 1'000'000'000'000'000;
  auto const text = write("text", s);
  EXPECT_EQ(text.find("Times are offsets from the trace start, 1000000000000000 ns"), 0u) << text;
  EXPECT_EQ(text.find("Times are"), text.rfind("Times are")) << "printed once";
  EXPECT_NE(text.find("start (ms)"), std::string::npos) << text;
  // 1 234.567 890 ms → to the microsecond; 501 ns before the origin rounds to -0.001 ms.
  EXPECT_NE(text.find("+1234.568"), std::string::npos) << text;
  EXPECT_NE(text.find("-0.001"), std::string::npos) << text;
  // --time-unit: the offsets in that unit, the header naming it (ns exact, s to the µs).
  out::write_options in_s;
  in_s.time_unit = "s";
  auto const seconds = write("text", s, "", in_s);
  EXPECT_NE(seconds.find("start (s)"), std::string::npos) << seconds;
  EXPECT_NE(seconds.find("+1.234568"), std::string::npos) << seconds;
  out::write_options in_ns;
  in_ns.time_unit = "ns";
  EXPECT_NE(write("text", s, "", in_ns).find("+1234567890"), std::string::npos);
  s.time_origin_name = "the first GPU operation";
  EXPECT_EQ(
      write("text", s).find("Times are offsets from the first GPU operation, 1000000000000000 ns"),
      0u);
  // Other time columns show ms in text, their header says so; CSV and JSON keep the ns.
  EXPECT_NE(text.find("other (ms)"), std::string::npos) << text;
  EXPECT_NE(write("text", s, "", in_ns).find("other_ns"), std::string::npos);
  EXPECT_NE(write("csv", s).find("1000001234567890"), std::string::npos);
  EXPECT_NE(write("json", s).find("1000001234567890"), std::string::npos);
}

}  // namespace

namespace {

TEST(PerfettoWriter, SpansAreExactMicrosecondsAndEmptyIsAValidTrace) {
  out::result_set s;
  EXPECT_EQ(write("perfetto", s), "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n]}\n");
  out::result_table t;
  t.name = "spans";
  t.add("rank", value_type::integer);
  t.add("start_ns", value_type::integer, "ns");
  t.add("end_ns", value_type::integer, "ns");
  t.add("what", value_type::string);
  t.spans = {"start_ns", "end_ns", "", "rank", "", "all", "what", "", "c", "what", ""};
  t.add_row({cell(std::int64_t{3}), cell(std::int64_t{1'700'000'000'000'000'123}),
             cell(std::int64_t{1'700'000'000'000'001'000}), cell(std::string("a \"b\""))});
  t.add_row({cell(std::int64_t{3}), cell(std::int64_t{-1'500}), cell(std::int64_t{-7}),
             cell(std::string("early"))});
  t.add_row({cell(std::int64_t{3}), cell(), cell(std::int64_t{1}), cell(std::string("no start"))});
  s.tables.push_back(t);
  auto const o = write("perfetto", s);
  EXPECT_NE(
      o.find("\"name\": \"a \\\"b\\\"\", \"pid\": 3, \"tid\": 1, \"ts\": 1700000000000000.123, "
             "\"dur\": 0.877"),
      std::string::npos)
      << o;
  EXPECT_NE(o.find("\"ts\": -1.500, \"dur\": 1.493"), std::string::npos) << o;
  EXPECT_EQ(o.find("no start"), std::string::npos) << o;
  EXPECT_NE(o.find("\"thread_name\", \"pid\": 3, \"tid\": 1, \"args\": {\"name\": \"all\"}"),
            std::string::npos)
      << o;
  EXPECT_THROW(write("perfetto", s, "nothing"), tracesweep::unknown_table_error);
}

}  // namespace

}  // namespace writers_test
