// SPDX-License-Identifier: Apache-2.0
// The CLI's registries. stats: --report's help lists every entry, every entry runs on the
// bundled sample, options are parsed by their entry and refused where an entry takes none, and
// each entry's reads ask for the event kinds its report is computed from. overview: --table's
// help lists every table of the job table registry.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <tracesweep/error.hpp>
#include <tracesweep/reports/job_table_registry.hpp>

#include "cli/stats_report_registry.hpp"
#include "support/run_cli.hpp"

namespace ts = tracesweep;
using namespace tracesweep::test;
using ts::cli::parse_report;
using ts::cli::report_entries;

namespace stats_report_registry_test {

std::string const sample =
    std::string(TRACESWEEP_SOURCE_DIR) + "/datasets/samples/train_2rank.sqlite";

/// The usage_error text of parse_report(text), or "" when it parses.
std::string refusal(std::string const& text) {
  try {
    (void)parse_report(text);
  } catch (ts::usage_error const& e) {
    return e.what();
  }
  return "";
}

TEST(StatsReportRegistry, HelpListsEveryEntryOnce) {
  auto const help = ts::cli::report_help();
  std::set<std::string_view> names;
  for (auto const& e : report_entries()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name << " twice";
    EXPECT_NE(
        help.find(std::string(e.name) + (e.listed_bare ? ", " : std::string(e.options_usage))),
        std::string::npos)
        << e.name;
    EXPECT_NE(e.compute, nullptr) << e.name;
    EXPECT_NE(e.reads, nullptr) << e.name;
  }
  EXPECT_EQ(names.size(), 17u);  // nine nsys summaries, six traces and NVTX reports, two rules
  auto const cli_help = run_cli("stats --help");
  EXPECT_NE(cli_help.out.find("gpu_time_util[:threshold=PERCENT][:chunks=N][:rows=N]"),
            std::string::npos);
}

TEST(StatsReportRegistry, EveryEntryRunsOnTheSample) {
  for (auto const& e : report_entries()) {
    auto const r =
        run_cli("stats --report " + std::string(e.name) + " --format csv " + quote(sample));
    EXPECT_EQ(r.exit_code, 0) << e.name << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << e.name;
  }
}

TEST(StatsReportRegistry, OptionsBelongToTheirEntry) {
  auto const [kern, spec] = parse_report("cuda_gpu_kern_sum:base:nvtx-name");
  EXPECT_EQ(kern->name, "cuda_gpu_kern_sum");
  EXPECT_EQ(spec.naming, ts::kernel_naming::base);
  EXPECT_TRUE(spec.nvtx_name);
  auto const [gaps, g] = parse_report("gpu_gaps:gap=0.5:rows=7");
  EXPECT_EQ(gaps->name, "gpu_gaps");
  EXPECT_EQ(g.gaps.min_gap_ns, 500'000);
  EXPECT_EQ(g.gaps.rows, 7u);
  auto const [util, u] = parse_report("gpu_time_util:threshold=20:chunks=10");
  EXPECT_EQ(util->name, "gpu_time_util");
  EXPECT_EQ(u.util.threshold_pct, 20.0);
  EXPECT_EQ(u.util.chunks, 10);

  EXPECT_EQ(refusal("cuda_gpu_kern"), "--report cuda_gpu_kern: unknown report");
  EXPECT_EQ(refusal("nvtx_sum:base"), "--report nvtx_sum:base: nvtx_sum takes no options");
  EXPECT_EQ(refusal("cuda_gpu_trace:x"),
            "--report cuda_gpu_trace:x: cuda_gpu_trace takes no options");
  EXPECT_EQ(refusal("cuda_gpu_kern_sum:fast"),
            "--report cuda_gpu_kern_sum:fast: unknown option fast (base, mangled or nvtx-name)");
  EXPECT_EQ(refusal("gpu_gaps:rows"), "--report gpu_gaps:rows: option rows needs =VALUE");
  EXPECT_EQ(refusal("gpu_gaps:chunks=3"),
            "--report gpu_gaps:chunks=3: unknown option chunks of gpu_gaps");
  EXPECT_EQ(refusal("gpu_time_util:chunks=0"),
            "--report gpu_time_util:chunks=0: chunks must be a whole number from 1 to 1000");

  auto const merged = run_cli("stats --report gpu_gaps --merge " + quote(sample));
  EXPECT_EQ(merged.exit_code, 1);
  EXPECT_NE(merged.err.find("the GPU rules print one table per input (no --merge)"),
            std::string::npos)
      << merged.err;
}

TEST(StatsReportRegistry, ReadsAskForTheKindsEachReportIsComputedFrom) {
  auto reads = [](std::string const& text) {
    auto [entry, spec] = parse_report(text);
    ts::read_options o;
    entry->reads(spec, o);
    return o;
  };
  EXPECT_EQ(reads("cuda_gpu_kern_sum").kinds, ts::kind_bit(ts::event_kind::kernel));
  EXPECT_FALSE(reads("cuda_gpu_kern_sum").streams);
  EXPECT_FALSE(reads("cuda_gpu_kern_sum").correlations);
  EXPECT_EQ(reads("cuda_gpu_kern_sum:mangled").kernel_names, ts::kernel_naming::mangled);
  EXPECT_TRUE(reads("cuda_gpu_kern_sum:nvtx-name").correlations);
  EXPECT_TRUE(reads("cuda_gpu_kern_gb_sum").launch_details);
  EXPECT_TRUE(reads("cuda_api_gpu_sum").correlations);
  EXPECT_TRUE(reads("cuda_kern_exec_trace").launch_details);
  EXPECT_FALSE(reads("cuda_kern_exec_sum").launch_details);
  EXPECT_TRUE(reads("nvtx_pushpop_trace").range_sources);
  EXPECT_TRUE(reads("gpu_gaps").gpu_contexts);
  EXPECT_EQ(reads("osrt_sum").kinds, ts::kind_bit(ts::event_kind::os_call));
}

// overview's --table help comes from the job table registry: every name --table takes is in it.
TEST(JobTableRegistry, OverviewTableHelpListsEveryTable) {
  auto const help = run_cli("overview --help").out;
  for (auto const& e : ts::job_table_entries()) {
    if (!e.selectable) continue;
    EXPECT_NE(help.find(std::string(e.name)), std::string::npos) << e.name;
    for (auto const also : e.also) EXPECT_NE(help.find(std::string(also)), std::string::npos);
  }
  EXPECT_NE(help.find("all (overview, model, distributed, kernels)"), std::string::npos) << help;
  EXPECT_NE(help.find("with --compat tb: all (tb)"), std::string::npos) << help;
}

}  // namespace stats_report_registry_test
