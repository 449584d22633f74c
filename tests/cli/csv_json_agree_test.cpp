// SPDX-License-Identifier: Apache-2.0
// CSV and JSON agree (issue 26, item 16): every table every command writes as CSV, on real
// traces, has each of its fields under the same name in the same table's JSON, and each value
// of a field there too, unrounded (numbers compared as the doubles they read back as).
#include <gtest/gtest.h>

#include <simdjson.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"
#include "support/trace_paths.hpp"

namespace csv_json_agree_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

/// Each key of a JSON document (at any depth) with the scalar values it holds; a key of objects
/// or arrays only (a nested table, a list, a map) holds none.
using values_by_field = std::map<std::string, std::set<std::string>>;

/// A number as the shortest text of the double it reads back as; any other text as it is.
std::string normal(std::string const& s) {
  double d = 0;
  auto const [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return s;
  char buf[64];
  auto const r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

void flatten(simdjson::dom::element e, std::string const& key, values_by_field& out) {
  using simdjson::dom::element_type;
  out[key];
  switch (e.type()) {
    case element_type::ARRAY:
      for (auto x : e.get_array()) flatten(x, key, out);
      break;
    case element_type::OBJECT:
      for (auto [k, v] : e.get_object()) flatten(v, std::string(k), out);
      break;
    case element_type::INT64:
      out[key].insert(normal(std::to_string(std::int64_t(e))));
      break;
    case element_type::UINT64:
      out[key].insert(normal(std::to_string(std::uint64_t(e))));
      break;
    case element_type::DOUBLE: {
      char buf[64];
      auto const r = std::to_chars(buf, buf + sizeof buf, double(e));
      out[key].insert(std::string(buf, r.ptr));
      break;
    }
    case element_type::STRING:
      out[key].insert(normal(std::string(std::string_view(e))));
      break;
    case element_type::BOOL:
      out[key].insert(bool(e) ? "true" : "false");
      break;
    case element_type::NULL_VALUE:
      break;
  }
}

/// Whether `field` is a CSV list ("144;145") of values all in `values` (JSON's array).
bool is_list_of(std::string const& field, std::set<std::string> const& values) {
  if (field.find(';') == std::string::npos) return false;
  for (std::size_t at = 0; at <= field.size();) {
    auto end = field.find(';', at);
    if (end == std::string::npos) end = field.size();
    if (!values.contains(normal(field.substr(at, end - at)))) return false;
    at = end + 1;
  }
  return true;
}

/// The tables `command` names when asked for one it does not have, for `format`.
std::vector<std::string> tables_of(std::string const& command, std::string const& format) {
  auto const r = run_cli(command + " --format " + format + " --table no_such_table");
  auto const open = r.err.find("(expected "), close = r.err.rfind(')');
  EXPECT_NE(open, std::string::npos) << command << ": " << r.err;
  if (open == std::string::npos) return {};
  auto list = r.err.substr(open + 10, close - open - 10);
  std::vector<std::string> out;
  for (std::size_t at = 0; at < list.size();) {
    auto const comma = list.find(", ", at), or_ = list.find(" or ", at);
    auto const end = std::min(comma, or_);
    out.push_back(list.substr(at, end - at));
    if (end == std::string::npos) break;
    at = end + (end == comma ? 2 : 4);
  }
  return out;
}

/// Every CSV table of `command` (`tables`; empty: those it names) against its JSON; "" for a
/// command of one table. Returns how many tables were compared.
std::size_t expect_agree(std::string const& command, std::vector<std::string> tables = {}) {
  SCOPED_TRACE(command);
  std::size_t compared = 0;
  if (tables.empty()) tables = tables_of(command, "csv");
  for (auto const& table : tables) {
    SCOPED_TRACE(table);
    auto const which = table.empty() ? "" : " --table " + table;
    auto const csv = run_cli(command + " --format csv" + which);
    auto const json = run_cli(command + " --format json" + which);
    EXPECT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(json.exit_code, 0) << json.err;
    if (csv.exit_code != 0 || json.exit_code != 0) continue;
    simdjson::dom::parser parser;
    values_by_field in_json;
    flatten(parser.parse(json.out), "", in_json);
    auto const rows = parse_csv(csv.out);
    if (rows.empty()) continue;
    ++compared;
    auto const& header = rows.front();
    for (std::size_t j = 0; j < header.size(); ++j) {
      std::size_t values = 0, missing = 0;
      std::string example;
      auto const found = in_json.find(header[j]);
      for (std::size_t i = 1; i < rows.size(); ++i) {
        if (j >= rows[i].size() || rows[i][j].empty()) continue;  // null
        ++values;
        if (found == in_json.end() || found->second.empty()) continue;
        if (found->second.contains(normal(rows[i][j]))) continue;
        if (is_list_of(rows[i][j], found->second)) continue;
        if (missing++ == 0) example = rows[i][j];
      }
      if (values == 0) continue;  // JSON may leave out a null
      EXPECT_NE(found, in_json.end()) << "CSV field " << header[j] << " is not in the JSON";
      EXPECT_EQ(missing, 0u) << "CSV field " << header[j] << ": " << missing << " of " << values
                             << " values not in the JSON, such as " << example;
    }
  }
  return compared;
}

TEST(CsvAndJson, EveryTableOfEveryCommandAgrees) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const resnet = quote(traces / "kineto/tb_plugin_samples_resnet50_v100" /
                            "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz");
  auto const nsys = quote(traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite");
  auto const two_ranks = quote(traces / "kineto/hta_trace_filter_2rank");
  std::size_t compared = 0;
  std::vector<std::string> const overview_tables{
      "overview",    "model",      "distributed",  "kernels",         "operators", "device",
      "userdefined", "memory_ops", "memory_steps", "memory_timeline", "memcpy",    "perf"};
  for (auto const& in : {resnet, nsys, two_ranks}) {
    for (auto const* command : {"summary ", "diagnose ", "critical-path "})
      compared += expect_agree(command + in);
    compared += expect_agree("overview " + in, overview_tables);
    compared += expect_agree("overview --compat tb " + in, {"tb", "tb_kernels", "operators"});
  }
  for (auto const* report :
       {"cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_api_sum", "nvtx_sum", "cuda_gpu_trace",
        "cuda_kern_exec_sum", "gpu_time_util", "nvtx_gpu_proj_sum"})
    compared += expect_agree(std::string("stats --report ") + report + " " + nsys, {""});
  scratch const folder("csv_json");
  auto const db = quote(folder.file("fleet.sqlite"));
  ASSERT_EQ(run_cli("scan --db " + db + " " + two_ranks).exit_code, 0);
  compared += expect_agree("report --db " + db);
  compared += expect_agree("diff " + resnet + " " + nsys);
  EXPECT_GT(compared, 40u);
}

}  // namespace csv_json_agree_test
