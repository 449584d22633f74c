// SPDX-License-Identifier: Apache-2.0
// tracesweep generate: a deterministic synthetic training trace, written in one input format;
// optionally with planted diagnosis patterns and their ground truth as JSON.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <tracesweep/error.hpp>
#include <tracesweep/generator/collective_job.hpp>
#include <tracesweep/generator/critical_path_job.hpp>
#include <tracesweep/generator/kineto_json_writer.hpp>
#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>
#include <tracesweep/output/writer.hpp>

#include "cli/cli_context.hpp"
#include "cli/collective_truth.hpp"
#include "cli/output_file.hpp"

namespace tracesweep::cli {

namespace {
struct generate_args {
  std::string format = "nsys-sqlite";
  std::string output;
  synthetic_options options;
  std::vector<std::string> plant;
  std::int32_t straggler_rank = -1;
  collective_job_options collectives;    ///< --plant collectives: its own job
  CLI::Option const* late_ns = nullptr;  ///< --late-ns, to tell whether it was given
  std::string truth;
};

/// The patterns `--plant` names (already checked against the list), with the straggler on
/// `--straggler-rank` or the last rank.
planted_patterns planted(generate_args const& args) {
  planted_patterns p;
  bool straggler = false;
  for (auto const& name : args.plant) {
    bool const all = name == "all";
    p.clean |= name == "clean";
    p.data_loader_gaps |= all || name == "data-loader";
    p.sync_gap |= all || name == "sync";
    p.long_tail |= all || name == "long-tail";
    p.tiny_burst |= all || name == "tiny-burst";
    p.small_copies |= all || name == "small-copies";
    p.memory_staircase |= name == "memory";
    straggler |= all || name == "straggler";
  }
  auto const ranks = args.options.ranks;
  if (!straggler && args.straggler_rank >= 0)
    throw usage_error("generate: --straggler-rank needs --plant straggler (or all)");
  if (args.straggler_rank >= ranks)
    throw usage_error("generate: --straggler-rank " + std::to_string(args.straggler_rank) +
                      ": must be below --ranks " + std::to_string(ranks));
  if (straggler) p.straggler_rank = args.straggler_rank >= 0 ? args.straggler_rank : ranks - 1;
  if (p.any() && args.options.kernels_per_step < 10)
    throw usage_error("generate: --plant needs --kernels-per-step 10 or more");
  return p;
}

/// The ground truth as result tables: one JSON object of six lists.
output::result_set truth_tables(planted_truth const& truth) {
  using output::value_type;
  auto i64 = [](std::int64_t v) { return output::cell{v}; };
  output::result_set r;
  auto& gaps = r.tables.emplace_back();
  gaps.name = "gaps";
  for (auto const* c : {"rank", "device"}) gaps.add(c, value_type::integer);
  for (auto const* c : {"start_ns", "end_ns", "duration_ns"})
    gaps.add(c, value_type::integer, "ns");
  gaps.add("cause", value_type::string);
  for (auto const& g : truth.gaps)
    gaps.add_row({i64(g.rank), i64(g.device), i64(g.start_ns), i64(g.end_ns),
                  i64(g.end_ns - g.start_ns), g.cause});

  auto& tail = r.tables.emplace_back();
  tail.name = "long_tail";
  for (auto const* c : {"rank", "device"}) tail.add(c, value_type::integer);
  tail.add("name", value_type::string);
  for (auto const* c : {"start_ns", "duration_ns"}) tail.add(c, value_type::integer, "ns");
  for (auto const& k : truth.long_tail)
    tail.add_row({i64(k.rank), i64(k.device), k.name, i64(k.start_ns), i64(k.duration_ns)});

  auto& bursts = r.tables.emplace_back();
  bursts.name = "tiny_kernel_bursts";
  for (auto const* c : {"rank", "device"}) bursts.add(c, value_type::integer);
  for (auto const* c : {"start_ns", "end_ns"}) bursts.add(c, value_type::integer, "ns");
  bursts.add("kernels", value_type::integer);
  bursts.add("launched_by", value_type::string);
  for (auto const& b : truth.bursts)
    bursts.add_row({i64(b.rank), i64(b.device), i64(b.start_ns), i64(b.end_ns), i64(b.kernels),
                    b.launched_by});

  auto& copies = r.tables.emplace_back();
  copies.name = "small_copies";
  for (auto const* c : {"rank", "device", "step"}) copies.add(c, value_type::integer);
  copies.add("direction", value_type::string);
  copies.add("copies", value_type::integer);
  copies.add("bytes", value_type::integer, "bytes");
  for (auto const& c : truth.small_copies)
    copies.add_row(
        {i64(c.rank), i64(c.device), i64(c.step), c.direction, i64(c.copies), i64(c.bytes)});

  auto& stragglers = r.tables.emplace_back();
  stragglers.name = "stragglers";
  stragglers.shape = output::json_shape::list;
  stragglers.add("rank", value_type::integer);
  for (auto const rank : truth.stragglers) stragglers.add_row({i64(rank)});

  auto& memory = r.tables.emplace_back();
  memory.name = "memory";
  for (auto const* c : {"rank", "device"}) memory.add(c, value_type::integer);
  memory.add("kind", value_type::string);
  for (auto const* c : {"start_ns", "end_ns"}) memory.add(c, value_type::integer, "ns");
  memory.add("peak_bytes", value_type::integer, "bytes");
  memory.add("growth_bytes_per_step", value_type::integer, "bytes");
  memory.add("steps", value_type::integer);
  for (auto const& m : truth.memory)
    memory.add_row({i64(m.rank), i64(m.device), std::string("staircase"), i64(m.start_ns),
                    i64(m.end_ns), i64(m.peak_bytes), i64(m.growth_bytes_per_step), i64(m.steps)});
  return r;
}

/// Creates the folder `path` is written into ("dir/" for a Kineto prefix, "dir/job.sqlite"):
/// -o names a folder that need not exist yet.
void create_parent_folder(std::string const& path) {
  auto const folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (folder.empty() || std::filesystem::is_directory(folder, ec)) return;
  if (!std::filesystem::create_directories(folder, ec) && ec)
    throw usage_error("-o " + path + ": cannot create the folder " + folder.string() + ": " +
                      ec.message());
}

void write_truth(output::result_set const& truth, std::string const& path) {
  output_file out(path);
  output::find_writer("json")(truth, "", out.stream(), {});
  out.commit();
}

/// --plant collectives: the collectives job alone (collective_job.hpp), its truth as tables.
output::result_set generate_collectives(generate_args const& args, event_table& table) {
  if (args.plant.size() > 1)
    throw usage_error("generate: --plant collectives is a job of its own: plant nothing else");
  auto o = args.collectives;
  o.ranks = args.options.ranks, o.steps = args.options.steps, o.start_ns = args.options.start_ns;
  if (o.ranks < 2) throw usage_error("generate: --plant collectives needs --ranks 2 or more");
  if (o.late_rank >= o.ranks)
    throw usage_error("generate: --late-rank " + std::to_string(o.late_rank) +
                      ": must be below --ranks " + std::to_string(o.ranks));
  return collective_truth_tables(generate_collective_job(o, table));
}
/// The trace's shape: format, ranks, devices, streams, steps, kernels, events, seed, output.
void add_shape_options(CLI::App* cmd, generate_args& args) {
  cmd->add_option("--format", args.format, "nsys-sqlite, kineto-json or kineto-json-gz")
      ->check(CLI::IsMember({"nsys-sqlite", "kineto-json", "kineto-json-gz"}))
      ->capture_default_str();
  cmd->add_option("--ranks", args.options.ranks, "Ranks (processes)")
      ->transform(number_in(1, 4096))
      ->capture_default_str();
  cmd->add_option("--devices", args.options.devices_per_rank, "GPUs per rank")
      ->transform(number_in(1, 64))
      ->capture_default_str();
  cmd->add_option("--streams", args.options.streams_per_device,
                  "Compute streams per GPU (NCCL gets one more)")
      ->transform(number_in(1, 64))
      ->capture_default_str();
  cmd->add_option("--steps", args.options.steps, "Training steps (ignored with --events)")
      ->transform(number_in(1, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--kernels-per-step", args.options.kernels_per_step,
                  "Compute kernels per step and GPU")
      ->transform(number_in(1, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--events", args.options.target_events,
                  "Approximate total events: as many whole steps as reach it")
      ->transform(number_in(std::int64_t{0}, std::int64_t{1} << 40));
  cmd->add_option("--seed", args.options.seed, "Random seed")->capture_default_str();
  cmd->add_option("-o,--output", args.output,
                  "Output file (nsys-sqlite) or path prefix (kineto: PREFIXrank-N.json[.gz])");
}

/// What is planted: the diagnosis patterns and their parameters, and the ground truth file.
void add_plant_options(CLI::App* cmd, generate_args& args) {
  cmd->add_option("--plant", args.plant,
                  "Diagnosis patterns to plant, comma-separated: clean, data-loader, sync, "
                  "long-tail, tiny-burst, small-copies, straggler, or all (the six patterns); "
                  "memory (a memory staircase on rank 0 and flat memory elsewhere; not in all); "
                  "collectives (alone: a job of all_reduce and all_gather with a late rank); "
                  "critical-path (alone: steps with a known critical path, "
                  "docs/critical_path.md)")
      ->delimiter(',')
      ->check(
          CLI::IsMember({"clean", "data-loader", "sync", "long-tail", "tiny-burst", "small-copies",
                         "straggler", "all", "memory", "collectives", "critical-path"}));
  cmd->add_option("--late-rank", args.collectives.late_rank,
                  "collectives: the rank the others wait for (default: the last rank)")
      ->transform(number_in(0, 4095));
  args.late_ns = cmd->add_option("--late-ns", args.collectives.late_ns,
                                 "collectives: how late that rank arrives at each all_reduce, ns")
                     ->transform(number_in(std::int64_t{0}, std::int64_t{1} << 40))
                     ->capture_default_str();
  cmd->add_option("--straggler-rank", args.straggler_rank,
                  "Rank of the planted straggler (default: the last rank)")
      ->transform(number_in(0, 4095));
  cmd->add_option("--start-ns", args.options.start_ns, "First timestamp, ns")
      ->transform(number_in(std::int64_t{0}, std::int64_t{1} << 61))
      ->capture_default_str();
  cmd->add_option(
      "--slow-kernel", args.options.slow_kernel,
      "A compute kernel name whose every instance is made slower (see --slow-permille)");
  cmd->add_option("--slow-permille", args.options.slow_kernel_permille,
                  "Duration of the --slow-kernel, per mille of its normal one")
      ->transform(number_in(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--idle-rank", args.options.idle_rank,
                  "A rank that waits --idle-rank-ns more on its data loader at every step")
      ->transform(number_in(0, 4095));
  cmd->add_option("--idle-rank-ns", args.options.idle_rank_ns,
                  "Extra data-loader wait per step of --idle-rank, ns")
      ->transform(number_in(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--truth", args.truth,
                  "Write the planted patterns' ground truth to this file as JSON");
}

/// Generates the trace, writes it (and the ground truth) and prints the paths written.
int run_generate(context& ctx, generate_args const& args) {
  std::string const path = args.output.empty() ? ctx.output_path : args.output;
  if (path.empty()) throw usage_error("generate: -o PATH is required");
  if (!args.truth.empty() && args.truth == path)
    throw usage_error("generate: --truth " + args.truth + ": the trace is written there");
  bool const collectives =
      std::find(args.plant.begin(), args.plant.end(), "collectives") != args.plant.end();
  if (!collectives && (args.collectives.late_rank >= 0 || args.late_ns->count() > 0))
    throw usage_error("generate: --late-rank and --late-ns need --plant collectives");
  bool const critical_path =
      std::find(args.plant.begin(), args.plant.end(), "critical-path") != args.plant.end();
  event_table table;
  output::result_set truth;
  if (critical_path) {
    if (args.plant.size() > 1)
      throw usage_error("generate: --plant critical-path is a job of its own: plant nothing else");
    if (!args.truth.empty())
      throw usage_error(
          "generate: --plant critical-path writes no --truth: docs/critical_path.md derives it");
    generate_critical_path_job({args.options.ranks, args.options.steps, args.options.start_ns},
                               table);
  } else if (collectives) {
    truth = generate_collectives(args, table);
  } else {
    auto options = args.options;
    options.plant = planted(args);
    truth = truth_tables(generate_synthetic_trace(options, table));
  }
  create_parent_folder(path);
  if (ctx.verbose) std::cerr << "tracesweep: generated " << table.size() << " events\n";
  try {
    if (args.format == "nsys-sqlite") {
      write_nsys_sqlite(table, path);
      std::cout << path << '\n';
    } else {
      std::string prefix = path;
      std::error_code ec;
      if (std::filesystem::is_directory(prefix, ec) && prefix.back() != '/') prefix += '/';
      for (auto const& p : write_kineto_json(table, prefix, args.format == "kineto-json-gz"))
        std::cout << p << '\n';
    }
  } catch (std::exception const& e) {
    // The writers report I/O failures as they come (SQLite, zlib, the file system).
    throw usage_error("-o " + path + ": cannot write " + args.format + ": " + e.what());
  }
  if (!args.truth.empty()) write_truth(truth, args.truth);
  return 0;
}

}  // namespace

void add_generate_command(CLI::App& app, context& ctx) {
  auto const command = add_command<generate_args>(
      app, "generate",
      "Write a deterministic synthetic multi-rank training trace (nsys SQLite or Kineto JSON)");
  auto const args = command.first;  // (no structured binding: lambdas capture it)
  auto* const cmd = command.second;
  add_shape_options(cmd, *args);
  add_plant_options(cmd, *args);
  cmd->callback(
      [&ctx, args = args] { ctx.run = [&ctx, args] { return run_generate(ctx, *args); }; });
}

}  // namespace tracesweep::cli
