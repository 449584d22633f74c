// SPDX-License-Identifier: Apache-2.0
// tracesweep diagnose: bottleneck diagnosis of one trace or a whole job (docs/diagnose.md).
#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/error.hpp>

#include "cli/cli_context.hpp"
#include "cli/pattern_options.hpp"

namespace tracesweep::cli {

namespace {

struct diagnose_args {
  analysis_args common;
  std::string table;
  diagnose_options options;
};

void add_threshold_options(CLI::App* cmd, diagnose_options& o) {
  auto const share = number_in(0.0, 1.0);
  cmd->add_option("--busy-threshold", o.busy_threshold,
                  "Busy share at or above which a device is GPU-bound")
      ->transform(share)
      ->capture_default_str();
  cmd->add_option("--comm-threshold", o.communication_threshold,
                  "Exposed communication share at or above which it is communication-bound")
      ->transform(share)
      ->capture_default_str();
  cmd->add_option("--idle-threshold", o.idle_cause_threshold,
                  "Share of the window an idle cause needs to decide the verdict")
      ->transform(share)
      ->capture_default_str();
  cmd->add_option(
         "--long-tail-factor", o.long_tail_factor,
         "Long tail: instances longer than this many times their group's median (name, grid, "
         "block)")
      ->transform(number_in(1.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--long-tail-min", o.long_tail_min_count,
                  "Long tail: only groups with at least this many instances")
      ->transform(number_from<std::size_t>(1))
      ->capture_default_str();
  cmd->add_option("--tiny-kernel", o.tiny_kernel_ns, "Bursts: kernels shorter than this, ns")
      ->transform(number_from<std::int64_t>(1))
      ->capture_default_str();
  cmd->add_option("--burst-min", o.burst_min_kernels, "Bursts: at least this many kernels")
      ->transform(number_in(std::size_t{2}, std::size_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--burst-gap", o.burst_max_gap_ns,
                  "Bursts: at most this long between consecutive kernels, ns")
      ->transform(number_from<std::int64_t>(0))
      ->capture_default_str();
  cmd->add_option("--small-copy-bytes", o.small_copy_bytes, "Small copies: at most this many bytes")
      ->transform(number_from<std::int64_t>(0))
      ->capture_default_str();
  cmd->add_option("--small-copy-count", o.small_copy_count,
                  "Small copies: at least this many of one direction in one step")
      ->transform(number_from<std::size_t>(1))
      ->capture_default_str();
  cmd->add_option("--memory-growth", o.memory_growth_bytes,
                  "Memory staircase: the per-step peak allocated grows by more than this many "
                  "bytes from step to step")
      ->transform(number_from<std::int64_t>(0))
      ->capture_default_str();
  cmd->add_option("--memory-steps", o.memory_growth_steps,
                  "Memory staircase: at least this many such increases in a row")
      ->transform(number_from<std::size_t>(1))
      ->capture_default_str();
  cmd->add_option("--straggler-threshold", o.straggler_threshold,
                  "Stragglers: mean step time above the median rank's by more than this fraction")
      ->transform(number_in(0.0, 1e9))
      ->capture_default_str();
}

}  // namespace

void add_diagnose_command(CLI::App& app, context& ctx) {
  auto const command = add_command<diagnose_args>(
      app, "diagnose",
      "Bottleneck diagnosis: idle gaps with their host-side cause, verdicts, periodic gaps, long "
      "tails, tiny-kernel bursts, sync and copy costs, stragglers, memory staircases");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  add_analysis_options(cmd, args->common, true);
  auto& o = args->options;
  cmd->add_option("--table", args->table, "Only this table (csv writes one: gaps by default)");
  cmd->add_option("--min-gap", o.min_gap_ns, "Shortest idle gap examined, ns")
      ->transform(number_from<std::int64_t>(0))
      ->capture_default_str();
  cmd->add_option("--top", o.top, "Instances kept per list, largest first (0 = all)")
      ->transform(count_validator())
      ->capture_default_str();
  add_threshold_options(cmd, o);
  cmd->add_option("--step-pattern", args->common.step_pattern,
                  "RE2: host ranges named like this are steps where the trace has none (nsys)")
      ->check(regex_check())
      ->capture_default_str();
  cmd->add_option("--data-loader-pattern", o.data_loader_pattern,
                  "RE2, searched in any case: host ranges that are data loading")
      ->check(regex_check())
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      read_options reading;
      reading.launch_shapes = true;  // long tails are grouped by launch configuration
      return ctx.run_analysis(
          args->common, reading, args->table,
          [&](job_session const& session) {
            return diagnose_results(diagnose(session, args->options));
          },
          [] { return diagnose_results(diagnosis{}); }, diagnose_needs(args->options));
    };
  });
}

}  // namespace tracesweep::cli
