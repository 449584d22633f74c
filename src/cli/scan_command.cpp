// SPDX-License-Identifier: Apache-2.0
// tracesweep scan: every trace under some directories into the results store (docs/fleet.md, "Fleet
// scans"), with a progress line on a terminal.
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>

#include <fmt/format.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/fleet/scan.hpp>

#include "cli/cli_context.hpp"
#include "cli/pattern_options.hpp"
#include "cli/progress_line.hpp"

namespace tracesweep::cli {

namespace {

struct scan_args {
  fleet::scan_options options;
  unsigned wait_seconds = 5;
  std::string shard;
  analysis_args filters;  ///< only its filter texts are used
};

/// The scan's progress text: files, bytes, ETA (identifying files first).
std::function<std::string()> scan_progress_text(fleet::scan_progress const& p) {
  return [&p, start = std::chrono::steady_clock::now()] {
    double const gb = 1e9;
    auto const done = p.bytes_done.load(), total = p.bytes_total.load();
    double const elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string eta = "-";
    if (done > 0 && total > done)
      eta = duration_text(elapsed * double(total - done) / double(done));
    if (p.hashing)
      return fmt::format("scan: identifying files… {} files, {:.2f} GB", p.files_total.load(),
                         double(total) / gb);
    return fmt::format("scan: {}/{} files ({} failed), {:.2f}/{:.2f} GB, ETA {}",
                       p.files_done.load(), p.files_total.load(), p.files_failed.load(),
                       double(done) / gb, double(total) / gb, eta);
  };
}

}  // namespace

void add_scan_command(CLI::App& app, context& ctx) {
  auto const command = add_command<scan_args>(
      app, "scan",
      "Scan directories of traces (jobs of rank files) into a SQLite results store: summary "
      "and diagnose per job, resumable, shardable");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  auto& o = args->options;
  cmd->add_option("dirs", o.roots, "Directories (searched recursively) or trace files")->required();
  cmd->add_option("--db", o.db_path, "The results database (SQLite), created when absent")
      ->required();
  cmd->add_option("--jobs", o.jobs, "Jobs analyzed at once (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--shard", args->shard,
                  "K/N: only the jobs whose path hashes to shard K of N (0 <= K < N)");
  cmd->add_option("--label", o.label, "A label for this run (reports and merge use it)");
  cmd->add_option("--wait", args->wait_seconds,
                  "Seconds to wait for another scan writing the database, then give up (exit 2)")
      ->transform(number_from<unsigned>(0))
      ->capture_default_str();
  cmd->add_option("--memory-limit", o.memory_limit,
                  "Bytes the jobs in flight may take, by estimate (suffixes K, M, G; "
                  "0 = half the physical memory)")
      ->transform(number_from<std::uint64_t>(0))
      ->transform(CLI::AsSizeValue(false));  // first: the suffix, then the number
  cmd->add_option("--comm-pattern", o.analysis.comm_pattern,
                  "Regex (RE2, case-insensitive) marking communication kernels")
      ->check(regex_check())
      ->capture_default_str();
  cmd->add_option("--gaps", o.analysis.diagnosis.top, "Longest idle gaps kept per job")
      ->transform(count_validator())
      ->capture_default_str();
  add_filter_options(cmd, args->filters);
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto options = args->options;
      options.wait = std::chrono::seconds(args->wait_seconds);
      if (!args->shard.empty()) {
        try {
          options.part = fleet::parse_shard(args->shard);
        } catch (std::invalid_argument const& e) {
          throw usage_error(std::string("--shard ") + e.what());
        }
      }
      options.analysis.filter = filter_of(args->filters);
      ctx.set_reading(options.analysis.reading);
      // Each worker may hold a CUDA backend: the scan tells it its share of the device memory
      // (1/workers started) and of the threads; it keeps its pinned staging out of the host
      // memory budget.
      options.analysis.make_backend = ctx.backend_factory();
      if (ctx.backend_name != "cpu") options.host_bytes_per_worker = cuda_host_bytes_per_worker();
      ctx.phase = "scanning";
      fleet::scan_progress progress;
      fleet::scan_result r;
      {
        progress_line line(scan_progress_text(progress), !ctx.quiet && isatty(STDERR_FILENO) == 1);
        r = fleet::run_scan(options, progress,
                            [&](std::string const& e) { line.print_above(error_line(e)); });
      }
      if (r.run_id == 0) {
        std::cout << fmt::format("nothing new: {} traces already stored\n", r.traces_skipped);
        return 0;
      }
      std::cout << fmt::format(
          "run {}{}: {} jobs written, {} skipped (already stored); traces: {} ok, {} failed, {} "
          "already stored{}\n",
          r.run_id, r.resumed ? " (resumed)" : "", r.jobs_written, r.jobs_skipped, r.traces_ok,
          r.traces_failed, r.traces_skipped,
          r.traces_changed
              ? fmt::format(", {} changed while scanned (not stored)", r.traces_changed)
              : "");
      return r.traces_failed || r.traces_changed ? static_cast<int>(exit_code::bad_input) : 0;
    };
  });
}

}  // namespace tracesweep::cli
