// SPDX-License-Identifier: Apache-2.0
// `overview --compat tb --table operators --format json` against the TensorBoard plugin's own
// checked-in operator view for both ResNet50 traces (tb_plugin_expected_views_span1.jsonl, lines
// 2 and 7, 0-based: `data` rows with name, calls and the four durations in integer µs). Every
// operator of the plugin's table must come out with the same calls and durations, and no other.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;

namespace tb_operators_test {

constexpr char const* duration_keys[] = {"device_self_duration", "device_total_duration",
                                         "host_self_duration", "host_total_duration"};

/// Calls and the four durations of one operator, in the plugin's order.
using op_values = std::vector<std::int64_t>;

op_values values_of(simdjson::dom::element row) {
  op_values v{std::int64_t(row["calls"])};
  for (auto const* k : duration_keys) v.push_back(std::int64_t(row[k]));
  return v;
}

std::map<std::string, op_values> rows_by_name(simdjson::dom::array rows) {
  std::map<std::string, op_values> out;
  for (auto row : rows) {
    auto const name = std::string(std::string_view(row["name"]));
    EXPECT_TRUE(out.emplace(name, values_of(row)).second) << "operator listed twice: " << name;
  }
  return out;
}

std::string line_of(std::filesystem::path const& p, std::size_t index) {
  std::ifstream in(p);
  std::string l;
  for (std::size_t k = 0; k <= index && std::getline(in, l); ++k) {
  }
  return l;
}

void check_run(std::filesystem::path const& trace, std::string const& expected_line) {
  SCOPED_TRACE(trace.string());
  auto const r = ts::test::run_cli("overview --compat tb --table operators --format json " +
                                   ts::test::quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p1, p2;
  simdjson::dom::element const expected_doc = p1.parse(expected_line);
  simdjson::dom::element const got_doc = p2.parse(r.out);
  auto const expected = rows_by_name(expected_doc["data"].get_array());
  auto const inputs = got_doc["tb_operators"].get_array().value();
  ASSERT_EQ(inputs.size(), 1u);
  auto const got = rows_by_name(inputs.at(0)["rows"].get_array());
  ASSERT_GT(expected.size(), 50u);  // the oracle line is the operator table
  EXPECT_EQ(got.size(), expected.size());
  for (auto const& [name, want] : expected) {
    auto const it = got.find(name);
    if (it == got.end()) {
      ADD_FAILURE() << "missing operator " << name;
      continue;
    }
    EXPECT_EQ(it->second, want) << name
                                << " (calls, device self, device total, host self, "
                                   "host total)";
  }
  for (auto const& [name, v] : got)
    EXPECT_TRUE(expected.count(name)) << "operator the plugin does not list: " << name;
}

TEST(TbOperators, BothResNet50RunsMatchThePluginsOperatorView) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const dir = traces / "kineto" / "tb_plugin_samples_resnet50_v100";
  auto const oracle = dir / "tb_plugin_expected_views_span1.jsonl";
  ASSERT_TRUE(std::filesystem::exists(oracle));
  check_run(dir / "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
            line_of(oracle, 2));
  check_run(dir / "resnet50_num_workers_4.worker0.1623212756351.pt.trace.json.gz",
            line_of(oracle, 7));
}

// The rows come sorted by device self time (the plugin's sort), and --sort changes the order.
TEST(TbOperators, RowsFollowTheSortKey) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const trace = traces / "kineto" / "tb_plugin_samples_resnet50_v100" /
                     "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz";
  for (std::string const key : {"", "host_total_duration"}) {
    SCOPED_TRACE(key);
    std::string const sort = key.empty() ? "" : " --sort host_total";
    auto const r = ts::test::run_cli("overview --compat tb --table operators --format json" + sort +
                                     " " + ts::test::quote(trace));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element const doc = p.parse(r.out);
    std::string const field = key.empty() ? "device_self_duration" : key;
    std::int64_t previous = INT64_MAX;
    std::size_t n = 0;
    for (auto row : doc["tb_operators"].at(0)["rows"].get_array()) {
      auto const v = std::int64_t(row[field]);
      EXPECT_LE(v, previous) << std::string_view(row["name"]);
      previous = v, ++n;
    }
    EXPECT_GT(n, 50u);
  }
}

}  // namespace tb_operators_test
