// SPDX-License-Identifier: Apache-2.0
// What a new user tripped on (issue 26), on the real traces: a help example's time range that
// kept nothing, empty results without a word of why, a count of table rows named as findings,
// perfetto files with nothing in them, internal table names in messages, generate's -o folder,
// and emit_nvtx's suffixes in diagnose's host columns.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tracesweep::test;

fs::path resnet50(fs::path const& traces) {
  return traces / "kineto/tb_plugin_samples_resnet50_v100" /
         "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz";
}

std::size_t json_devices(std::string const& summary_json) {
  simdjson::dom::parser parser;
  return simdjson::dom::array(parser.parse(summary_json)["devices"]).size();
}

TEST(FirstUse, AnEndAfterARelativeStartCountsFromTheTraceStart) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : {traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite", resnet50(traces),
                        traces / "kineto/hta_trace_compare_base/base.json.gz"}) {
    SCOPED_TRACE(f.string());
    auto const example = run_cli("summary --format json --time-range +0:200ms " + quote(f));
    auto const relative = run_cli("summary --format json --time-range +0:+200ms " + quote(f));
    ASSERT_EQ(example.exit_code, 0) << example.err;
    EXPECT_EQ(example.out, relative.out);
    EXPECT_GT(json_devices(example.out), 0u) << example.err;
  }
  auto const help = run_cli("summary --help");
  EXPECT_NE(help.out.find("+0:200ms"), std::string::npos);
  EXPECT_NE(help.out.find("after +START, END counts from the trace start too"), std::string::npos)
      << help.out;
}

}  // namespace
