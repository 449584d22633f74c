// SPDX-License-Identifier: Apache-2.0
// The examples each command's --help ends with. They run from the top of a checkout, in this
// order (later ones read what earlier ones write), on the bundled sample and generated jobs;
// tests/cli/help_examples_test.cpp runs every one.
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {

struct examples_of {
  std::string_view command;
  std::vector<std::string_view> lines;  ///< the arguments after "tracesweep "
};

std::vector<examples_of> const& all_examples() {
  static std::vector<examples_of> const table{
      {"generate",
       {"generate --ranks 4 --plant data-loader -o job.sqlite",
        "generate --format kineto-json-gz --ranks 2 -o job-"}},
      {"summary",
       {"summary datasets/samples/train_2rank.sqlite",
        "summary --format json --time-range +0:200ms datasets/samples/train_2rank.sqlite",
        "summary job-rank-0.json.gz job-rank-1.json.gz"}},
      {"stats",
       {"stats --report cuda_gpu_kern_sum datasets/samples/train_2rank.sqlite",
        "stats --report cuda_gpu_trace --format csv datasets/samples/train_2rank.sqlite",
        "stats --report gpu_gaps:gap=1 job.sqlite"}},
      {"overview",
       {"overview datasets/samples/train_2rank.sqlite", "overview --compat tb job-rank-0.json.gz"}},
      {"diagnose",
       {"diagnose datasets/samples/train_2rank.sqlite", "diagnose --format json job.sqlite",
        "diagnose --format perfetto -o overlay.json job.sqlite"}},
      {"critical-path",
       {"critical-path datasets/samples/train_2rank.sqlite",
        "critical-path --what-if 'elementwise=0.5' --format json job-rank-0.json.gz"}},
      {"scan",
       {"scan --db runs.sqlite datasets/samples",
        "scan --db shard0.sqlite --shard 0/2 datasets/samples",
        "scan --db shard1.sqlite --shard 1/2 datasets/samples"}},
      {"report",
       {"report --db runs.sqlite", "report --db runs.sqlite --table top_kernels --format csv"}},
      {"diff",
       {"diff datasets/samples/train_2rank.sqlite job.sqlite",
        "diff --table kernels --format json datasets/samples/train_2rank.sqlite job.sqlite"}},
      {"merge",
       {"merge all.sqlite shard0.sqlite shard1.sqlite",
        "report --db all.sqlite --table stragglers"}},
  };
  return table;
}

}  // namespace

void add_examples(CLI::App& app) {
  for (auto const& e : all_examples()) {
    std::string footer = "\nExamples (from the top of a checkout):";
    for (auto const line : e.lines) footer.append("\n  tracesweep ").append(line);
    app.get_subcommand(std::string(e.command))->footer(footer);
  }
}

}  // namespace tracesweep::cli
