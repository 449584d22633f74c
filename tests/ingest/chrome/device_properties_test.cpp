// SPDX-License-Identifier: Apache-2.0
// GPU metadata from Chrome traces: deviceProperties (Kineto; Paddle's smCount) into the input's
// device names and properties, checked on every real Kineto trace against the array parsed by
// the tests' own JSON parser, through `summary --format json` ("gpus"), and on a built Paddle
// file with entries the reader must leave out or leave unknown.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <filesystem>
#include <map>
#include <string>

#include <tracesweep/input_reader.hpp>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"
#include "test_json.hpp"

namespace tracesweep::test {
namespace {

namespace fs = std::filesystem;

/// The text of the top-level "deviceProperties" array, found by walking its brackets outside
/// strings; empty when the trace has none.
std::string device_properties_text(std::string const& trace) {
  auto const key = trace.find("\"deviceProperties\"");
  if (key == std::string::npos) return {};
  auto const open = trace.find('[', key);
  int depth = 0;
  bool in_string = false;
  for (auto i = open; i < trace.size(); ++i) {
    char const c = trace[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return trace.substr(open, i - open + 1);
  }
  return {};
}

struct gpu {
  std::string name;
  std::int64_t memory = -1, sms = -1, major = -1, minor = -1;
  friend bool operator==(gpu const&, gpu const&) = default;
};

/// id → gpu from the parsed array (the first entry of an id wins).
std::map<std::int32_t, gpu> expected_gpus(json const& list) {
  std::map<std::int32_t, gpu> out;
  auto number = [](json const* v) {
    return v && v->t == json::type::number ? std::stoll(v->text) : -1;
  };
  for (auto const& d : list.items) {
    auto const id = number(d.find("id"));
    if (id < 0) continue;
    gpu g;
    if (auto const* n = d.find("name"); n && n->t == json::type::string) g.name = n->text;
    g.memory = number(d.find("totalGlobalMem"));
    g.sms = d.find("numSms") ? number(d.find("numSms")) : number(d.find("smCount"));
    g.major = number(d.find("computeMajor"));
    g.minor = number(d.find("computeMinor"));
    out.try_emplace(static_cast<std::int32_t>(id), g);
  }
  return out;
}

std::map<std::int32_t, gpu> read_gpus(input_info const& info) {
  std::map<std::int32_t, gpu> out;
  for (auto const& [id, p] : info.device_properties) {
    auto const name = info.device_names.find(id);
    out[id] = {name == info.device_names.end() ? "" : name->second, p.total_memory_bytes,
               p.sm_count, p.compute_major, p.compute_minor};
  }
  return out;
}

TEST(DeviceProperties, EveryKinetoTraceMatchesItsDevicePropertiesArray) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  int with = 0, without = 0;
  for (auto const& e : fs::recursive_directory_iterator(traces / "kineto")) {
    auto const& p = e.path();
    auto const name = p.filename().string();
    if (!e.is_regular_file() || !(name.ends_with(".json") || name.ends_with(".json.gz"))) continue;
    if (fs::file_size(p) > (std::uintmax_t{2} << 20)) continue;  // the large ones: their own tests
    SCOPED_TRACE(p.string());
    auto const text = device_properties_text(load_text(p));
    event_table t;
    read_options o;
    o.threads = 1;
    read_input(p.string(), t, o);
    auto const& info = t.inputs().at(0);
    if (text.empty()) {
      EXPECT_TRUE(info.device_properties.empty());
      ++without;
      continue;
    }
    auto const want = expected_gpus(json_reader(text).parse_document());
    EXPECT_EQ(read_gpus(info), want);
    with += !want.empty();
  }
  EXPECT_GE(with, 8);
  EXPECT_GE(without, 2);
}

TEST(DeviceProperties, SummaryJsonCarriesNamesAndMemory) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "kineto" / "hta_nccl_allreduce_a100" / "nccl_data.json.gz";
  auto const want =
      expected_gpus(json_reader(device_properties_text(load_text(f))).parse_document());
  ASSERT_EQ(want.size(), 8u);
  auto const r = run_cli("summary --format json " + quote(f));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto const doc = parser.parse(r.out);
  auto const in = doc["inputs"].at(0);
  std::map<std::int32_t, gpu> got;
  for (auto g : in["gpus"].get_array()) {
    auto const id = static_cast<std::int32_t>(std::int64_t(g["device"]));
    got[id] = {std::string(std::string_view(g["name"])), std::int64_t(g["total_memory_bytes"]),
               std::int64_t(g["sm_count"]), -1, -1};
    std::string_view cc = g["compute_capability"];
    auto const& w = want.at(id);
    EXPECT_EQ(cc, std::to_string(w.major) + "." + std::to_string(w.minor));
    EXPECT_EQ(std::string_view(in["device_names"][std::to_string(id)]), w.name);
  }
  for (auto& [id, g] : got) g.major = want.at(id).major, g.minor = want.at(id).minor;
  EXPECT_EQ(got, want);
}

TEST(DeviceProperties, PaddleSmCountAndEntriesLeftOutOrUnknown) {
  auto const dir = fs::temp_directory_path() / ("ts_devprops_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto const path = dir / "paddle.json";
  // Paddle writes smCount; an entry without an id (or a negative one) is left out; a value of
  // the wrong type is unknown; the first entry of a repeated id wins.
  write_text(path, R"({"schemaVersion": "1.0.1", "deviceProperties": [
    {"id": 0, "name": "Tesla V100-SXM2-32GB", "totalGlobalMem": 34089730048, "computeMajor": 7,
     "computeMinor": 0, "smCount": 80},
    {"name": "no id", "totalGlobalMem": 1},
    {"id": -1, "name": "negative"},
    {"id": 1, "name": "odd", "totalGlobalMem": "lots", "smCount": 1.5},
    {"id": 0, "name": "again"}],
    "traceEvents": [{"name": "k", "ph": "X", "cat": "Kernel", "ts": 1, "dur": 2, "pid": 0,
                     "tid": 7, "args": {"device": 0, "stream": 7}}, {}]})");
  event_table t;
  read_input(path.string(), t, {});
  auto const got = read_gpus(t.inputs().at(0));
  std::map<std::int32_t, gpu> const want{{0, {"Tesla V100-SXM2-32GB", 34089730048, 80, 7, 0}},
                                         {1, {"odd", -1, -1, -1, -1}}};
  EXPECT_EQ(got, want);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tracesweep::test

namespace tracesweep::test {
namespace {

TEST(DeviceProperties, InvalidJsonInsideTheArrayIsAnErrorNamingTheKey) {
  // A control character inside a name (found by fuzz_chrome_events): the whole value is
  // checked before any field is looked up.
  auto const dir =
      std::filesystem::temp_directory_path() / ("ts_devprops_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const path = dir / "bad.json";
  write_text(path,
             "{\"deviceProperties\": [{\"id\": 0, \"name\": \"A\x01\"}], \"traceEvents\": []}");
  event_table t;
  try {
    read_input(path.string(), t, {});
    ADD_FAILURE() << "accepted";
  } catch (input_error const& e) {
    EXPECT_NE(std::string(e.what()).find("deviceProperties: invalid JSON"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(t.inputs().empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tracesweep::test
