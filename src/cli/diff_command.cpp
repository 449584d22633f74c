// SPDX-License-Identifier: Apache-2.0
// tracesweep diff: two traces or job directories analyzed now, or two runs of a results store;
// exit 3 when a regression passes --fail-above.
#include <thread>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/job_diff.hpp>
#include <tracesweep/fleet/results_store.hpp>

#include "cli/cli_context.hpp"
#include "cli/pattern_options.hpp"

namespace tracesweep::cli {

namespace {

struct diff_args {
  std::string before, after;
  std::string db;
  std::string format = "text";
  std::string table;
  std::string comm_pattern = "nccl|rccl";
  std::string pair_ranks;
  double fail_above = -1;
  fleet::diff_options options;
};

/// One side of a trace diff: every trace under `path` analyzed as one job (named "" so that the
/// two sides match).
fleet::job_record analyze_side(context& ctx, std::string const& path, diff_args const& a) {
  fleet::job_spec spec{path, "", expand_inputs({path})};
  std::vector<fleet::trace_record> traces;
  for (auto const& f : spec.files) traces.push_back(fleet::identify(f));
  fleet::analyze_options o;
  o.comm_pattern = a.comm_pattern;
  o.keep_going = ctx.keep_going;
  o.reading.threads = ctx.threads;
  ctx.set_reading(o.reading);
  o.share = {ctx.threads, 1};
  o.make_backend = ctx.backend_factory();
  auto job = fleet::analyze_job(spec, std::move(traces), o);
  for (auto const& t : job.traces)
    if (!t.ok) std::cerr << error_line(t.error) << '\n';
  if (!job.any_ok()) throw input_error(path, "", "no input could be read");
  return job;
}

/// The jobs of run `which` of the store.
std::vector<fleet::job_record> run_jobs(fleet::results_store const& store,
                                        std::string const& which) {
  auto const run = store.find_run(which);
  if (!run) throw usage_error("diff: " + which + ": no such run in " + store.path());
  return store.load_jobs(run->id);
}

}  // namespace

void add_diff_command(CLI::App& app, context& ctx) {
  auto const command = add_command<diff_args>(
      app, "diff",
      "Compare two traces or job directories (or, with --db, two runs): kernels slower or "
      "faster, new and vanished; utilization, idle by cause, step time. Exit 3 on a regression "
      "above --fail-above");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  cmd->add_option("before", args->before,
                  "Trace, job directory, or with --db a run (id, latest, "
                  "previous)")
      ->required();
  cmd->add_option("after", args->after, "The same for the other side")->required();
  cmd->add_option("--db", args->db, "Compare two runs of this results database");
  add_format_option(cmd, args->format);
  cmd->add_option("--table", args->table, "Only this table");
  cmd->add_option("--fail-above", args->fail_above,
                  "Exit 3 when something got worse by more than this percent")
      ->transform(number_in(0.0, 1e9));
  cmd->add_option("--threshold", args->options.threshold_percent, "List changes above this percent")
      ->transform(number_in(0.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--min-share", args->options.min_kernel_share,
                  "Kernels below this share of their rank's kernel time are never a regression")
      ->transform(number_in(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--comm-pattern", args->comm_pattern,
                  "Regex (RE2, case-insensitive) marking communication kernels")
      ->check(regex_check())
      ->capture_default_str();
  cmd->add_option("--pair-ranks", args->pair_ranks,
                  "Pair the two sides' ranks by number (equal rank numbers) or order (the i-th "
                  "rank of each); default: by number when both have the same rank numbers, else "
                  "by order (a note on stderr says which)")
      ->check(CLI::IsMember({"number", "order"}));
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto options = args->options;
      if (!args->pair_ranks.empty())
        options.pair_ranks =
            args->pair_ranks == "number" ? fleet::rank_pairing::number : fleet::rank_pairing::order;
      if (args->fail_above >= 0) options.fail_above_percent = args->fail_above;
      std::optional<output_file> file;
      ctx.open_output(file);
      std::vector<fleet::job_record> before, after;
      ctx.phase = "diff";
      if (!args->db.empty()) {
        fleet::results_store const store(args->db, true);
        before = run_jobs(store, args->before);
        after = run_jobs(store, args->after);
      } else {
        before.push_back(analyze_side(ctx, args->before, *args));
        after.push_back(analyze_side(ctx, args->after, *args));
      }
      auto const result = fleet::diff_jobs(before, after, options);
      for (auto const& note : result.notes) std::cerr << error_line("diff: " + note) << '\n';
      ctx.write(result.tables, args->format, args->table, file ? &*file : nullptr);
      return result.regressions.empty() ? 0 : static_cast<int>(exit_code::regression);
    };
  });
}

}  // namespace tracesweep::cli
