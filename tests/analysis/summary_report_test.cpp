// SPDX-License-Identifier: Apache-2.0
// Summary writers: the JSON schema pinned by a golden file (keys, order and types), JSON
// validity, *_ns as exact integers, doubles round-tripping, RFC 4180 CSV and aligned text.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <tracesweep/analysis/summary_results.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/output/writer.hpp>

#include "support/run_cli.hpp"

namespace ts = tracesweep;

namespace summary_report_test {

/// A summary with awkward values: beyond 2^53, negative, names needing escapes and quoting.
ts::summary sample() {
  ts::summary s;
  ts::input_info a;
  a.path = "dir/rank \"0\".sqlite";
  a.format = "nsys-sqlite";
  a.ranks = {0, 1};
  a.events = 123456789999;
  auto by_kind = [&a](ts::event_kind k) -> std::int64_t& {
    return a.events_by_kind[static_cast<std::size_t>(k)];
  };
  by_kind(ts::event_kind::kernel) = 123456789000;
  by_kind(ts::event_kind::memcpy) = 10;
  by_kind(ts::event_kind::memset) = 2;
  by_kind(ts::event_kind::api_call) = 987;  // host rows: not GPU operations
  a.skipped = {{"end_before_start", 3}, {"no device", 7}};
  a.session_start_utc_ns = 1'733'861'216'912'637'995;  // > 2^53
  a.process_ids = {{0, 144}, {1, 145}};
  a.device_names = {
      {0, "NVIDIA H100 80GB HBM3"}, {1, "NVIDIA H100 80GB HBM3"}, {3, "GPU \"x\", y"}};
  ts::input_info b;
  b.path = "b,c.json";
  b.format = "kineto-json";
  b.ranks = {2};
  b.events = 5;
  s.inputs = {a, b};
  ts::device_summary d;
  d.input = 1;
  d.rank = 2;
  d.device = 3;
  d.window_start_ns = 1'700'000'000'000'000'001;  // > 2^53: not representable as a double
  d.window_end_ns = 1'700'000'000'123'456'789;
  d.window_ns = d.window_end_ns - d.window_start_ns;
  d.busy_ns = 100'000'000;
  d.idle_ns = d.window_ns - d.busy_ns;
  d.utilization = double(d.busy_ns) / double(d.window_ns);
  d.kernel_ns = 90'000'000;
  d.memcpy_ns = 9'000'001;
  d.memset_ns = 1;
  d.communication_ns = 40'000'000;
  d.computation_ns = 60'000'000;
  d.overlap_ns = 10'000'000;
  d.kernel_count = 4242;
  d.exposed_comm_wait_ns = 3'000'000;
  d.exposed_comm_transfer_ns = 7'000'000;
  s.devices = {d, d};
  s.devices[0].input = 0;
  s.devices[0].rank = 0;
  ts::kernel_summary k;
  k.name = "void f<a, b>(int, \"q\")\n\ttab\x01 caf\xc3\xa9 bad\xff";
  k.calls = 3;
  k.total_ns = 9'007'199'254'740'993;  // 2^53 + 1
  k.avg_ns = 3002399751580331.0;       // a whole number: must still print as a double
  k.median_ns = 0.1;
  k.min_ns = -5;
  k.max_ns = 9'007'199'254'740'000;
  k.stddev_ns = 1.0 / 3.0;
  k.share = 0.7;
  ts::kernel_summary k2;
  k2.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  k2.calls = 1;
  k2.total_ns = 7;
  k2.avg_ns = 7;
  k2.median_ns = 7;
  k2.min_ns = 7;
  k2.max_ns = 7;
  k2.share = 0.3;
  s.kernels = {k, k2};
  s.gaps = {{0, 0, 3, 1'700'000'000'000'000'001, 1'700'000'000'000'100'001, 100'000},
            {1, 2, 3, 5, 105, 100}};
  return s;
}

enum class fmt { text, json, csv };

/// The summary through the output layer, as the CLI writes it.
std::string write(ts::summary const& s, fmt f, std::string const& table = "") {
  static constexpr char const* names[] = {"text", "json", "csv"};
  std::ostringstream o;
  ts::output::find_writer(names[static_cast<int>(f)])(ts::summary_results(s), table, o, {});
  return o.str();
}

std::string type_name(simdjson::dom::element const& e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      return "array";
    case simdjson::dom::element_type::OBJECT:
      return "object";
    case simdjson::dom::element_type::INT64:
      return "int";
    case simdjson::dom::element_type::UINT64:
      return "int";
    case simdjson::dom::element_type::DOUBLE:
      return "double";
    case simdjson::dom::element_type::STRING:
      return "string";
    case simdjson::dom::element_type::BOOL:
      return "bool";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
  }
  return "?";
}

/// Checks that `got` has the shape of `want`: same keys in the same order, same types; every
/// element of an array against the first element of the golden array. The contents of
/// "skipped" (reason → count) and "process_ids" (rank → pid) are free-form keys with integer
/// values, those of "device_names" (device id → name) free-form keys with string values;
/// "session_start_utc_ns" and a GPU's name and properties are the golden's type or null (metadata
/// the input did not carry), as are the exposed communication's wait and transfer (null without
/// collectives matched across ranks).
void expect_schema(simdjson::dom::element got, simdjson::dom::element want, std::string const& at) {
  auto const ends_with = [&](std::string_view suffix) { return at.ends_with(suffix); };
  bool const optional =
      ends_with(".session_start_utc_ns") || at.find(".gpus[]") != std::string::npos ||
      ends_with(".exposed_comm_wait_ns") || ends_with(".exposed_comm_transfer_ns");
  if (optional && type_name(got) == "null") return;
  ASSERT_EQ(type_name(got), type_name(want)) << "at " << at;
  if (got.type() == simdjson::dom::element_type::OBJECT) {
    if (ends_with(".skipped") || ends_with(".device_names") || ends_with(".process_ids")) {
      auto const type = ends_with(".device_names") ? "string" : "int";
      for (auto [key, value] : simdjson::dom::object(got))
        EXPECT_EQ(type_name(value), type) << "at " << at << "." << key;
      return;
    }
    std::vector<std::string> gk, wk;
    for (auto [key, value] : simdjson::dom::object(got)) gk.emplace_back(key);
    for (auto [key, value] : simdjson::dom::object(want)) wk.emplace_back(key);
    ASSERT_EQ(gk, wk) << "keys at " << at;
    for (auto const& key : wk) expect_schema(got[key].value(), want[key].value(), at + "." + key);
  } else if (got.type() == simdjson::dom::element_type::ARRAY) {
    simdjson::dom::array wa = want;
    if (wa.size() == 0) return;
    for (auto item : simdjson::dom::array(got)) expect_schema(item, wa.at(0).value(), at + "[]");
  }
}

std::filesystem::path golden() {
  return std::filesystem::path(TRACESWEEP_SOURCE_DIR) / "tests/analysis/golden/summary.json";
}

TEST(summary_json, matches_the_golden_schema) {
  auto const json = write(sample(), fmt::json);
  simdjson::dom::parser p1, p2;
  simdjson::dom::element got, want;
  ASSERT_EQ(p1.parse(json).get(got), simdjson::SUCCESS) << json;
  auto const golden_text = ts::test::slurp(golden());
  ASSERT_FALSE(golden_text.empty()) << golden();
  ASSERT_EQ(p2.parse(golden_text).get(want), simdjson::SUCCESS);
  expect_schema(got, want, "$");
  // Every *_ns in the golden file is an integer, every ratio and mean a double.
  for (auto const* table : {"devices", "kernels", "gaps"}) {
    for (auto [key, value] : simdjson::dom::object(want[table].at(0).value())) {
      std::string const k(key);
      if (k.size() > 3 && k.substr(k.size() - 3) == "_ns" && k != "avg_ns" && k != "median_ns" &&
          k != "stddev_ns") {
        EXPECT_EQ(type_name(value), "int") << table << "." << k;
      }
      if (k == "avg_ns" || k == "median_ns" || k == "stddev_ns" || k == "share" ||
          k == "utilization") {
        EXPECT_EQ(type_name(value), "double") << table << "." << k;
      }
    }
  }
}

TEST(summary_json, values_round_trip_exactly) {
  auto const s = sample();
  auto const json = write(s, fmt::json);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(json).get(doc), simdjson::SUCCESS);
  auto const dev = doc["devices"].at(0).value();
  EXPECT_EQ(std::int64_t(dev["window_start_ns"]), s.devices[0].window_start_ns);
  EXPECT_EQ(std::int64_t(dev["window_end_ns"]), s.devices[0].window_end_ns);
  EXPECT_EQ(std::int64_t(dev["memset_ns"]), 1);
  EXPECT_EQ(double(dev["utilization"]), s.devices[0].utilization);
  EXPECT_EQ(std::string_view(dev["path"]), s.inputs[0].path);
  auto const k = doc["kernels"].at(0).value();
  EXPECT_EQ(std::string_view(k["name"]),
            std::string_view("void f<a, b>(int, \"q\")\n\ttab\x01 caf\xc3\xa9 bad\xef\xbf\xbd"));
  EXPECT_EQ(std::int64_t(k["total_ns"]), s.kernels[0].total_ns);
  EXPECT_EQ(std::int64_t(k["min_ns"]), -5);
  EXPECT_EQ(double(k["avg_ns"]), s.kernels[0].avg_ns);
  EXPECT_EQ(double(k["median_ns"]), 0.1);
  EXPECT_EQ(double(k["stddev_ns"]), 1.0 / 3.0);
  EXPECT_EQ(double(k["share"]), 0.7);
  EXPECT_EQ(type_name(doc["kernels"].at(1).value()["avg_ns"].value()), "double");
  auto const g = doc["gaps"].at(0).value();
  EXPECT_EQ(std::int64_t(g["start_ns"]), s.gaps[0].start_ns);
  EXPECT_EQ(std::int64_t(g["input"]), 0);
  auto const in = doc["inputs"].at(0).value();
  EXPECT_EQ(std::int64_t(in["gpu_operations"]), 123456789012);
  EXPECT_EQ(std::int64_t(in["skipped"]["no device"]), 7);
  EXPECT_EQ(simdjson::dom::array(in["ranks"]).size(), 2u);
  EXPECT_EQ(std::int64_t(in["session_start_utc_ns"]), *s.inputs[0].session_start_utc_ns);
  EXPECT_EQ(simdjson::dom::object(in["device_names"]).size(), 3u);
  EXPECT_EQ(std::string_view(in["device_names"]["3"]), "GPU \"x\", y");
  auto const in2 = doc["inputs"].at(1).value();
  EXPECT_TRUE(in2["session_start_utc_ns"].is_null());
  EXPECT_EQ(simdjson::dom::object(in2["device_names"]).size(), 0u);
}

TEST(summary_json, one_table_and_empty_summary) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(write(sample(), fmt::json, "gaps")).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(simdjson::dom::object(doc).size(), 1u);
  EXPECT_EQ(simdjson::dom::array(doc["gaps"]).size(), 2u);
  ASSERT_EQ(p.parse(write(ts::summary{}, fmt::json)).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(simdjson::dom::object(doc).size(), 4u);
  EXPECT_EQ(simdjson::dom::array(doc["devices"]).size(), 0u);
}

TEST(summary_report, unknown_table_names_the_tables) {
  try {
    (void)write(sample(), fmt::text, "kernel");
    FAIL() << "no exception";
  } catch (ts::unknown_table_error const& e) {
    EXPECT_EQ(e.table(), "kernel");
    EXPECT_EQ(e.valid(), (std::vector<std::string>{"devices", "kernels", "gaps", "inputs"}));
  }
}

/// A small RFC 4180 reader: records of fields, LF line ends.
std::vector<std::vector<std::string>> parse_csv(std::string const& s) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char const c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        rows.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        rows.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

TEST(summary_csv, rfc4180_quoting_and_exact_values) {
  auto const s = sample();
  auto const kernels = parse_csv(write(s, fmt::csv, "kernels"));
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0],
            (std::vector<std::string>{"name", "calls", "total_ns", "avg_ns", "median_ns", "min_ns",
                                      "max_ns", "stddev_ns", "share"}));
  // Control characters kept exactly; a byte that is not UTF-8 becomes U+FFFD (issue 27).
  EXPECT_EQ(kernels[1][0], "void f<a, b>(int, \"q\")\n\ttab\x01 caf\xc3\xa9 bad\xef\xbf\xbd");
  EXPECT_EQ(kernels[1][2], "9007199254740993");
  EXPECT_EQ(std::stod(kernels[1][7]), 1.0 / 3.0);
  auto const devices = parse_csv(write(s, fmt::csv));  // default table: devices
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0][0], "input");
  EXPECT_EQ(devices[1][1], "dir/rank \"0\".sqlite");
  EXPECT_EQ(devices[2][1], "b,c.json");
  EXPECT_EQ(devices[1][4], "1700000000000000001");
  auto const inputs = parse_csv(write(s, fmt::csv, "inputs"));
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[1][2], "0;1");
  EXPECT_EQ(inputs[0][3], "process_ids");
  EXPECT_EQ(inputs[1][3], "0=144;1=145");
  EXPECT_EQ(inputs[2][3], "");
  EXPECT_EQ(inputs[1][5], "end_before_start=3;no device=7");
  EXPECT_EQ(inputs[0][6], "session_start_utc_ns");
  EXPECT_EQ(inputs[0][7], "device_names");
  EXPECT_EQ(inputs[1][6], "1733861216912637995");
  EXPECT_EQ(inputs[1][7], "0=NVIDIA H100 80GB HBM3;1=NVIDIA H100 80GB HBM3;3=GPU \"x\", y");
  EXPECT_EQ(inputs[2][6], "");
  EXPECT_EQ(inputs[2][7], "");
  for (auto const& r : inputs) EXPECT_EQ(r.size(), inputs[0].size());
}

TEST(summary_text, aligned_columns_with_units) {
  auto const text = write(sample(), fmt::text);
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  // Devices block: title, header, two rows of equal width (right-aligned numbers).
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "Devices (2)");
  EXPECT_NE(lines[1].find("busy (ms)"), std::string::npos);
  EXPECT_NE(lines[1].find("util (%)"), std::string::npos);
  EXPECT_EQ(lines[2].size(), lines[1].size());
  EXPECT_EQ(lines[3].size(), lines[1].size());
  // Each header ends where its column's values end.
  auto const end_of = [&](std::string const& l, std::string const& h) {
    return l.find(h) + h.size();
  };
  auto const busy_end = end_of(lines[1], "busy (ms)");
  EXPECT_EQ(lines[2].substr(busy_end - 7, 7), "100.000");  // 100000000 ns
  EXPECT_NE(text.find("Kernels (2)"), std::string::npos);
  EXPECT_NE(text.find("70.00"), std::string::npos);  // share in percent
  EXPECT_NE(text.find("Idle gaps (2)"), std::string::npos);
  EXPECT_NE(text.find("end_before_start: 3, no device: 7"), std::string::npos);
  EXPECT_NE(text.find("0-1=NVIDIA H100 80GB HBM3, 3=GPU \"x\", y"), std::string::npos);
  EXPECT_EQ(text.find("1733861216912637995"), std::string::npos);  // JSON and CSV only
  EXPECT_NE(write(ts::summary{}, fmt::text).find("(none)"), std::string::npos);
}

}  // namespace summary_report_test
