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

namespace first_use_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

fs::path sample() {
  return fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite";
}

fs::path resnet50(fs::path const& traces) {
  return traces / "kineto/tb_plugin_samples_resnet50_v100" /
         "resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz";
}

std::size_t lines_of(std::string const& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
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

TEST(FirstUse, AnInputWithoutGpuOperationsSaysSo) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const mtia = traces / "kineto/hta_mtia_single_rank/mtia_rank_0.json.gz";
  for (std::string const command : {"summary", "overview", "diagnose"}) {
    SCOPED_TRACE(command);
    auto const r = run_cli(command + " " + quote(mtia));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(lines_of(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("warning: " + mtia.string() + ": no GPU operations"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("cpu_op 108889"), std::string::npos) << r.err;
  }
  auto const nvtx = run_cli("stats --report nvtx_sum " + quote(mtia));  // reads no GPU operation
  EXPECT_EQ(nvtx.err, "");
  auto const plain = run_cli("summary " + quote(resnet50(traces)));
  EXPECT_EQ(plain.err, "");
}

TEST(FirstUse, AFilterThatKeepsNothingSaysSo) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite";
  auto const none = run_cli("overview --time-range +100000s: " + quote(f));
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(lines_of(none.err), 1u) << none.err;
  EXPECT_TRUE(std::regex_search(
      none.err, std::regex("the filters \\(--time-range \\+100000s:\\) kept 0 of [0-9]+ rows")))
      << none.err;
  // Absolute times, before the trace began: what +0:200ms meant before.
  auto const before = run_cli("summary --time-range 0:200ms " + quote(f));
  EXPECT_EQ(before.exit_code, 0);
  EXPECT_EQ(lines_of(before.err), 1u) << before.err;
  EXPECT_NE(before.err.find("the filters (--time-range 0:200ms) kept 0 of"), std::string::npos)
      << before.err;
  auto const some = run_cli("summary --time-range +0:+1ms " + quote(f));
  EXPECT_EQ(some.err, "");
}

TEST(FirstUse, FindingsCountCountsFindings) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const r = run_cli("diagnose " + quote(resnet50(traces)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch title;
  ASSERT_TRUE(
      std::regex_search(r.out, title, std::regex("Findings, costliest first \\(([0-9]+)\\)")));
  std::size_t findings = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    findings += std::regex_search(line, std::regex("^  [0-9]+\\. ")) ? 1 : 0;
  EXPECT_GT(findings, 0u);
  EXPECT_EQ(std::stoul(title[1].str()), findings);
}

TEST(FirstUse, PerfettoOnlyWhereACommandHasATimeline) {
  auto const in = quote(sample());
  for (std::string const& command :
       {"stats --report cuda_gpu_kern_sum " + in, "overview " + in, "diff " + in + " " + in,
        std::string("report --db nothing.sqlite")}) {
    SCOPED_TRACE(command);
    auto const r = run_cli(command + " --format perfetto");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines_of(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("only summary, diagnose and critical-path have"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
  for (std::string const command : {"summary", "diagnose", "critical-path"}) {
    auto const r = run_cli(command + " --format perfetto " + in);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"ph\""), std::string::npos) << command << " drew nothing";
  }
  EXPECT_EQ(run_cli("stats --help").out.find("perfetto"), std::string::npos);
}

TEST(FirstUse, MessagesNameTablesAsUsersDo) {
  auto const verdicts = run_cli("diagnose --table verdicts " + quote(sample()));
  EXPECT_EQ(verdicts.exit_code, 0) << verdicts.err;
  EXPECT_TRUE(verdicts.out.starts_with("Verdicts (")) << verdicts.out;
  auto const gaps = run_cli("diagnose --table gaps " + quote(sample()));
  // After the line that says where "at" counts from (item 17).
  EXPECT_TRUE(gaps.out.starts_with("Times are offsets from the first GPU operation, ") &&
              gaps.out.find("\nLargest idle gaps (") != std::string::npos)
      << gaps.out;
  for (std::string const format : {"text", "html"}) {
    auto const bad = run_cli("diagnose --table nothing --format " + format + " " + quote(sample()));
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("expected verdicts,"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("_text"), std::string::npos) << bad.err;
  }
}

TEST(FirstUse, GenerateCreatesTheOutputFolder) {
  auto const dir = fs::temp_directory_path() / ("ts_first_use_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto const kineto =
      run_cli("generate --format kineto-json --steps 2 -o " + quote(dir / "kineto") + "/");
  EXPECT_EQ(kineto.exit_code, 0) << kineto.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "kineto/rank-0.json"));
  auto const nsys = run_cli("generate --steps 2 -o " + quote(dir / "a/b/job.sqlite"));
  EXPECT_EQ(nsys.exit_code, 0) << nsys.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "a/b/job.sqlite"));
  fs::remove_all(dir);
}

TEST(FirstUse, EmitNvtxSuffixesLeftOutOfTextHostColumns) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = quote(traces / "nsys/nsys-ai/mfu_2gpu_before.sqlite");
  auto const text = run_cli("diagnose " + f);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(host: aten::"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(", seq = "), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(", op_id = "), std::string::npos) << text.out;
  auto const json = run_cli("diagnose --format json " + f);
  EXPECT_NE(json.out.find(", op_id = "), std::string::npos) << "JSON keeps the names whole";
}

}  // namespace first_use_test
