// SPDX-License-Identifier: Apache-2.0
// The command line: exit codes (0 ok, 1 usage, 2 bad input or unavailable backend), one-line
// errors naming the file, --keep-going, -o FILE, and generate → summary end to end against
// compute_summary on the generator's own table; generate --plant --truth against the generator's
// own ground truth and the summary's idle gaps.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/version.hpp>

#include "support/run_cli.hpp"

namespace ts = tracesweep;
namespace fs = std::filesystem;
using ts::test::quote;
using ts::test::run_cli;

namespace cli_test {

std::size_t lines(std::string const& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A temporary folder with one small generated nsys export, shared by the tests.
class cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("ts_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    sample = dir / "train.sqlite";
    auto const r = run_cli(
        "generate --format nsys-sqlite --ranks 2 --seed 7 --steps 3 "
        "--kernels-per-step 120 -o " +
        quote(sample));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    garbage = dir / "garbage.json";
    std::ofstream(garbage) << "this is not a trace\n";
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }
  static fs::path dir, sample, garbage;
};
fs::path cli::dir, cli::sample, cli::garbage;

TEST_F(cli, help_and_version_exit_0) {
  auto const v = run_cli("--version");
  EXPECT_EQ(v.exit_code, 0);
  std::istringstream lines(v.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, std::string("tracesweep ") + ts::version_string);
  std::getline(lines, line);
#ifdef TRACESWEEP_HAVE_CUDA
  // "built with CUDA 13.0.88 for 80-real 90-real 90-virtual" (CUDAARCHS=90 gives "for 90").
  EXPECT_TRUE(line.starts_with("CUDA backend: built with CUDA ")) << line;
  auto const archs = line.find(" for ");
  ASSERT_NE(archs, std::string::npos) << line;
  EXPECT_TRUE(archs + 5 < line.size() && std::isdigit(static_cast<unsigned char>(line[archs + 5])))
      << line;
#else
  EXPECT_EQ(line, "CUDA backend: not built (CPU only)");
#endif
  // The libraries, as each reports its own version.
  std::getline(lines, line);
  auto const simdjson = std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_REVISION);
  for (auto const& want :
       {std::string("SQLite ") + sqlite3_libversion(), std::string("ISA-L "),
        "simdjson " + simdjson, std::string("RE2 "), std::string("fmt "), std::string("CLI11 ")})
    EXPECT_NE(line.find(want), std::string::npos) << want << " in " << line;
  for (auto const* args : {"--help", "summary --help", "generate --help"}) {
    auto const r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args;
  }
  EXPECT_NE(run_cli("summary --help").out.find("--comm-pattern"), std::string::npos);
}

TEST_F(cli, usage_errors_exit_1) {
  for (std::string const& args :
       {std::string(""), std::string("no-such-command"), std::string("summary"),
        "summary --format xml " + quote(sample), "--threads many summary " + quote(sample),
        "--backend tpu summary " + quote(sample), "summary --no-such-flag " + quote(sample),
        "summary --min-gap -5 " + quote(sample), std::string("generate --format parquet -o x"),
        std::string("generate --ranks 0 -o x"), std::string("generate --plant bogus -o x"),
        std::string("generate --plant sync,tiny -o x"),
        std::string("generate --plant straggler --straggler-rank -1 -o x")}) {
    auto const r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << "args: " << args << "\n" << r.err;
  }
  // Usage mistakes found after parsing: one line, exit 1.
  for (std::string const& args :
       {"summary --table kernal " + quote(sample), "summary --comm-pattern '(' " + quote(sample),
        std::string("generate --format nsys-sqlite"),
        "generate -o " + quote(garbage / "x.sqlite"),  // a folder that is a file
        "generate --plant straggler --ranks 2 --straggler-rank 2 -o " + quote(dir / "x.sqlite"),
        "generate --plant sync --straggler-rank 0 -o " + quote(dir / "x.sqlite"),
        "generate --plant clean --kernels-per-step 9 -o " + quote(dir / "x.sqlite"),
        "generate --plant sync --truth " + quote(dir / "x.sqlite") + " -o " +
            quote(dir / "x.sqlite")}) {
    auto const r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << "args: " << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // A missing or misspelt command is named, with the commands there are.
  auto const unknown = run_cli("--threads 2 sumary " + quote(sample));
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err,
            "tracesweep: unknown command 'sumary' (expected summary, stats, generate, overview, "
            "diagnose, critical-path, scan, report, diff, merge)\n");
  auto const none = run_cli("-o x.json");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err.rfind("tracesweep: a command is required (expected summary,", 0), 0u)
      << none.err;
}

TEST_F(cli, missing_and_unknown_files_exit_2_with_one_line_naming_the_file) {
  auto const missing = (dir / "absent.sqlite").string();
  for (auto const& path : {missing, garbage.string()}) {
    auto const r = run_cli("summary " + quote(path));
    EXPECT_EQ(r.exit_code, 2) << path;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_NE(run_cli("summary " + quote(garbage)).err.find("unknown format"), std::string::npos);
}

TEST_F(cli, backend_cuda_without_a_gpu_is_one_line_exit_2) {
  if (ts::cuda_unavailable_reason().empty()) GTEST_SKIP() << "a CUDA device is usable here";
  auto const r = run_cli("--backend cuda summary " + quote(sample));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // auto falls back to the CPU and says so with -v.
  auto const a = run_cli("-v --backend auto summary " + quote(sample));
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.err.find("backend: cpu"), std::string::npos) << a.err;
}

TEST_F(cli, keep_going_reports_the_bad_file_and_summarises_the_rest) {
  auto const stop = run_cli("summary --format json " + quote(garbage) + " " + quote(sample));
  EXPECT_EQ(stop.exit_code, 2);
  EXPECT_TRUE(stop.out.empty());
  EXPECT_NE(stop.err.find(garbage.string()), std::string::npos);

  auto const go =
      run_cli("--keep-going summary --format json " + quote(garbage) + " " + quote(sample));
  EXPECT_EQ(go.exit_code, 2) << "a file failed, so the exit code still says so";
  EXPECT_EQ(lines(go.err), 1u) << go.err;
  EXPECT_NE(go.err.find(garbage.string()), std::string::npos);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(go.out).get(doc), simdjson::SUCCESS) << go.out;
  ASSERT_EQ(simdjson::dom::array(doc["inputs"]).size(), 1u);
  EXPECT_EQ(std::string_view(doc["inputs"].at(0)["path"]), sample.string());
  EXPECT_EQ(simdjson::dom::array(doc["devices"]).size(), 2u);

  auto const all_bad = run_cli("--keep-going summary " + quote(garbage));
  EXPECT_EQ(all_bad.exit_code, 2);
  EXPECT_TRUE(all_bad.out.empty());
}

TEST_F(cli, output_file_holds_what_stdout_would) {
  auto const out = dir / "summary.csv";
  auto const to_stdout = run_cli("summary --format csv --table kernels " + quote(sample));
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  auto const to_file =
      run_cli("-o " + quote(out) + " summary --format csv --table kernels " + quote(sample));
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty());
  EXPECT_EQ(ts::test::slurp(out), to_stdout.out);
  EXPECT_EQ(to_stdout.out.rfind("name,calls,total_ns,", 0), 0u);
  auto const unwritable =
      run_cli("-o " + quote(dir / "no/such/dir/x") + " summary " + quote(sample));
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_EQ(lines(unwritable.err), 1u);
}

TEST_F(cli, every_command_writes_an_html_page) {
  EXPECT_NE(run_cli("summary --help").out.find("text, csv, json, html"), std::string::npos);
  for (std::string_view args :
       {"summary --format html ", "overview --format html ", "overview --compat tb --format html ",
        "stats --report cuda_gpu_kern_sum --format html "}) {
    auto const r = run_cli(std::string(args) + quote(sample));
    ASSERT_EQ(r.exit_code, 0) << args << r.err;
    EXPECT_EQ(r.out.rfind("<!DOCTYPE html>\n", 0), 0u) << args;
    EXPECT_TRUE(r.out.ends_with("</html>\n")) << args;
    EXPECT_NE(r.out.find("<section id="), std::string::npos) << args;
    EXPECT_EQ(r.out.find("<script"), std::string::npos) << args;
  }
  // The page is the text view: the summary's text-hidden path column stays out, --table works.
  auto const devices = run_cli("summary --format html --table devices " + quote(sample));
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find("<section id=\"devices\">"), std::string::npos);
  EXPECT_EQ(devices.out.find("<section id=\"kernels\">"), std::string::npos);
  EXPECT_EQ(devices.out.find("<th>path</th>"), std::string::npos);
  auto const table = devices.out.find("<table class=\"rows\">");
  EXPECT_NE(table, std::string::npos);
  EXPECT_EQ(table, devices.out.rfind("<table")) << "one table";
  EXPECT_NE(devices.out.find("<th class=\"num\">util (%)</th>"), std::string::npos);
}

/// Compares a summary JSON document with compute_summary's result field by field. Times may be
/// rebased by a writer, so durations and counts are compared, not absolute timestamps.
void expect_matches(simdjson::dom::element doc, ts::summary const& want) {
  simdjson::dom::array devices = doc["devices"];
  ASSERT_EQ(devices.size(), want.devices.size());
  std::size_t i = 0;
  for (auto d : devices) {
    auto const& w = want.devices[i++];
    EXPECT_EQ(std::int64_t(d["rank"]), w.rank);
    EXPECT_EQ(std::int64_t(d["window_ns"]), w.window_ns);
    EXPECT_EQ(std::int64_t(d["busy_ns"]), w.busy_ns);
    EXPECT_EQ(std::int64_t(d["idle_ns"]), w.idle_ns);
    EXPECT_EQ(double(d["utilization"]), w.utilization);
    EXPECT_EQ(std::int64_t(d["kernel_ns"]), w.kernel_ns);
    EXPECT_EQ(std::int64_t(d["memcpy_ns"]), w.memcpy_ns);
    EXPECT_EQ(std::int64_t(d["memset_ns"]), w.memset_ns);
    EXPECT_EQ(std::int64_t(d["communication_ns"]), w.communication_ns);
    EXPECT_EQ(std::int64_t(d["computation_ns"]), w.computation_ns);
    EXPECT_EQ(std::int64_t(d["overlap_ns"]), w.overlap_ns);
    EXPECT_EQ(std::int64_t(d["kernel_count"]), w.kernel_count);
  }
  simdjson::dom::array kernels = doc["kernels"];
  ASSERT_EQ(kernels.size(), want.kernels.size());
  i = 0;
  for (auto k : kernels) {
    auto const& w = want.kernels[i++];
    EXPECT_EQ(std::string_view(k["name"]), w.name);
    EXPECT_EQ(std::int64_t(k["calls"]), w.calls);
    EXPECT_EQ(std::int64_t(k["total_ns"]), w.total_ns);
    EXPECT_EQ(double(k["median_ns"]), w.median_ns);
    EXPECT_EQ(std::int64_t(k["min_ns"]), w.min_ns);
    EXPECT_EQ(std::int64_t(k["max_ns"]), w.max_ns);
  }
  simdjson::dom::array gaps = doc["gaps"];
  ASSERT_EQ(gaps.size(), want.gaps.size());
  i = 0;
  for (auto g : gaps) EXPECT_EQ(std::int64_t(g["duration_ns"]), want.gaps[i++].duration_ns);
}

/// The table the fixture's sample export is generated from (seed 7, 2 ranks, 3 steps, 120 kernels
/// per step).
ts::event_table sample_table() {
  ts::synthetic_options o;
  o.seed = 7;
  o.ranks = 2;
  o.steps = 3;
  o.kernels_per_step = 120;
  ts::event_table t;
  ts::generate_synthetic_trace(o, t);
  return t;
}

ts::summary generators_own_summary() {
  auto const t = sample_table();
  auto be = ts::make_cpu_backend(1);
  return ts::compute_summary(ts::trace_model(t), *be, {});
}

/// `summary --format json` of `input` (quoted here) against generators_own_summary().
void expect_summary_matches_the_generators_own(fs::path const& input) {
  auto const r = run_cli("summary --format json " + quote(input));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS);
  expect_matches(doc, generators_own_summary());
}

TEST_F(cli, generated_export_summarises_like_the_generators_own_table) {
  // The same trace, straight into the table: the writer and reader must not change a number.
  expect_summary_matches_the_generators_own(sample);
}

TEST_F(cli, generated_kineto_traces_summarise_like_the_generators_own_table) {
  auto const out = dir / "kineto";
  fs::create_directories(out);
  auto const g = run_cli(
      "generate --format kineto-json-gz --ranks 2 --seed 7 --steps 3 "
      "--kernels-per-step 120 -o " +
      quote(out));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(lines(g.out), 2u) << "one file per rank: " << g.out;
  expect_summary_matches_the_generators_own(out);
}

TEST_F(cli, summary_options_reach_the_computation) {
  auto const t = sample_table();
  auto be = ts::make_cpu_backend(1);
  ts::summary_options so;
  so.min_gap_ns = 0;
  so.top = 3;
  auto const want = ts::compute_summary(ts::trace_model(t, {"^void"}), *be, so);

  auto const r =
      run_cli("summary --format json --min-gap 0 --top 3 --comm-pattern '^void' " + quote(sample));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS);
  std::size_t i = 0;
  for (auto d : simdjson::dom::array(doc["devices"])) {
    EXPECT_GT(want.devices[i].communication_ns, 0);
    EXPECT_EQ(std::int64_t(d["communication_ns"]), want.devices[i].communication_ns);
    EXPECT_EQ(std::int64_t(d["overlap_ns"]), want.devices[i++].overlap_ns);
  }
  simdjson::dom::array gaps = doc["gaps"];
  ASSERT_EQ(gaps.size(), want.gaps.size());
  EXPECT_GT(gaps.size(), 2u);
  i = 0;
  for (auto g : gaps) EXPECT_EQ(std::int64_t(g["duration_ns"]), want.gaps[i++].duration_ns);
}

TEST_F(cli, generate_plants_patterns_and_writes_their_truth) {
  auto const trace = dir / "planted.sqlite", truth_file = dir / "truth.json";
  auto const g = run_cli(
      "generate --format nsys-sqlite --ranks 2 --seed 7 --steps 4 --kernels-per-step 120 "
      "--plant all --truth " +
      quote(truth_file) + " -o " + quote(trace));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.out, trace.string() + "\n");

  // The same trace in process: its truth is what the file says.
  ts::synthetic_options o;
  o.seed = 7;
  o.ranks = 2;
  o.steps = 4;
  o.kernels_per_step = 120;
  o.plant.data_loader_gaps = o.plant.sync_gap = o.plant.long_tail = o.plant.tiny_burst =
      o.plant.small_copies = true;
  o.plant.straggler_rank = 1;  // the last rank by default
  ts::event_table t;
  auto const want = ts::generate_synthetic_trace(o, t);
  ASSERT_EQ(want.gaps.size(), 2u * 3u + 1u) << "a data-loader gap per later step, one sync gap";

  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.load(truth_file.string()).get(doc), simdjson::SUCCESS);
  simdjson::dom::array gaps = doc["gaps"];
  ASSERT_EQ(gaps.size(), want.gaps.size());
  std::size_t i = 0;
  for (auto gap : gaps) {
    auto const& w = want.gaps[i++];
    EXPECT_EQ(std::int64_t(gap["rank"]), w.rank);
    EXPECT_EQ(std::int64_t(gap["device"]), w.device);
    EXPECT_EQ(std::int64_t(gap["start_ns"]), w.start_ns);
    EXPECT_EQ(std::int64_t(gap["end_ns"]), w.end_ns);
    EXPECT_EQ(std::int64_t(gap["duration_ns"]), w.end_ns - w.start_ns);
    EXPECT_EQ(std::string_view(gap["cause"]), w.cause);
  }
  simdjson::dom::array tail = doc["long_tail"];
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(std::string_view(tail.at(0)["name"]), want.long_tail[0].name);
  EXPECT_EQ(std::int64_t(tail.at(2)["duration_ns"]), want.long_tail[2].duration_ns);
  simdjson::dom::array bursts = doc["tiny_kernel_bursts"];
  ASSERT_EQ(bursts.size(), 1u);
  EXPECT_EQ(std::int64_t(bursts.at(0)["kernels"]), 200);
  EXPECT_EQ(std::int64_t(bursts.at(0)["start_ns"]), want.bursts[0].start_ns);
  EXPECT_EQ(std::string_view(bursts.at(0)["launched_by"]), "torch.nn.utils.clip_grad_norm_");
  simdjson::dom::array copies = doc["small_copies"];
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(std::int64_t(copies.at(0)["step"]), 2);
  EXPECT_EQ(std::string_view(copies.at(0)["direction"]), "HtoD");
  EXPECT_EQ(std::int64_t(copies.at(0)["copies"]), 24);
  EXPECT_EQ(std::int64_t(copies.at(0)["bytes"]), want.small_copies[0].bytes);
  simdjson::dom::array stragglers = doc["stragglers"];
  ASSERT_EQ(stragglers.size(), 1u);
  EXPECT_EQ(std::int64_t(stragglers.at(0)), 1);

  // The summary of the export sees exactly the planted gaps as its idle gaps of 80 µs or more
  // (nsys times start at the session, the earliest event).
  auto const session = *std::min_element(t.start_ns.begin(), t.start_ns.end());
  auto const s = run_cli("summary --format json --min-gap 80000 --top 0 " + quote(trace));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  simdjson::dom::element summary;
  ASSERT_EQ(p.parse(s.out).get(summary), simdjson::SUCCESS);
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> seen, planted;
  for (auto gap : simdjson::dom::array(summary["gaps"]))
    seen.emplace(std::int64_t(gap["rank"]), std::int64_t(gap["device"]),
                 std::int64_t(gap["start_ns"]), std::int64_t(gap["end_ns"]));
  for (auto const& w : want.gaps)
    planted.emplace(w.rank, w.device, w.start_ns - session, w.end_ns - session);
  EXPECT_EQ(seen, planted);

  // Nothing planted: the truth file still has every list, empty.
  auto const plain = run_cli("generate --ranks 1 --steps 1 --kernels-per-step 20 --truth " +
                             quote(dir / "empty.json") + " -o " + quote(dir / "plain.sqlite"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(p.load((dir / "empty.json").string()).get(doc), simdjson::SUCCESS);
  for (auto const* key : {"gaps", "long_tail", "tiny_kernel_bursts", "small_copies", "stragglers"})
    EXPECT_EQ(simdjson::dom::array(doc[key]).size(), 0u) << key;
}

}  // namespace cli_test
