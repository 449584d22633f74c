// SPDX-License-Identifier: Apache-2.0
// tracesweep critical-path: the critical path of each step (or annotation instance) of each rank,
// what bounds it, and what shortening its events would buy (docs/critical_path.md).
#include <charconv>
#include <cmath>

#include <tracesweep/analysis/critical_path.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/model/name_regex.hpp>

#include "cli/cli_context.hpp"
#include "cli/pattern_options.hpp"

namespace tracesweep::cli {

namespace {

struct critical_path_args {
  analysis_args common;
  std::string table;
  std::vector<std::string> what_ifs;
  std::int32_t rank = -1;
  std::int64_t instance = -1;
  critical_path_options options;
};

/// 'NAME_REGEX=FACTOR': the regex before the last '=', a factor ≥ 0 after it.
what_if_factor parse_what_if(std::string const& text) {
  auto const at = text.rfind('=');
  auto const fail = [&] {
    return usage_error("--what-if " + text + ": expected NAME_REGEX=FACTOR with a factor >= 0");
  };
  if (at == std::string::npos || at == 0) throw fail();
  what_if_factor f{text.substr(0, at), 0.0};
  auto const factor = text.substr(at + 1);
  auto const [end, ec] = std::from_chars(factor.data(), factor.data() + factor.size(), f.factor);
  if (ec != std::errc() || end != factor.data() + factor.size() || !std::isfinite(f.factor) ||
      f.factor < 0)
    throw fail();
  return f;
}

}  // namespace

void add_critical_path_command(CLI::App& app, context& ctx) {
  auto const command = add_command<critical_path_args>(
      app, "critical-path",
      "Critical path of each step: what bounds it edge by edge (HTA's graph), the events on it, "
      "and the step time saved by shortening them");
  auto const args = command.first;
  auto* const cmd = command.second;
  add_analysis_options(cmd, args->common, true);
  cmd->add_option("--table", args->table,
                  "Only this table (csv writes one: critical_path by default)");
  cmd->add_option("--annotation", args->options.annotation,
                  "Windows: the rows whose name contains this (default: each profiler step, or "
                  "the whole trace)");
  cmd->add_option("--instance", args->instance, "Only this instance of them (0-based)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--rank", args->rank, "Only this rank")->check(CLI::NonNegativeNumber);
  cmd->add_option("--step-pattern", args->common.step_pattern,
                  "RE2: host ranges named like this are steps where the trace has none (nsys)")
      ->check(regex_check())
      ->capture_default_str();
  cmd->add_option("--what-if", args->what_ifs,
                  "NAME_REGEX=FACTOR: scale the matching events' time on the graph and give the "
                  "new path length (repeatable; the first matching factor applies)")
      ->allow_extra_args(false);  // one value each: the inputs follow
  cmd->add_option("--payoff", args->options.payoff_events,
                  "The costliest events whose removal from the graph is computed")
      ->capture_default_str();
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto& o = args->options;
      o.what_ifs.clear();
      for (auto const& w : args->what_ifs) o.what_ifs.push_back(parse_what_if(w));
      for (auto const& w : o.what_ifs) {
        try {
          name_regex const compiled(w.pattern);
        } catch (pattern_error const& e) {
          throw usage_error("--what-if: '" + e.pattern() + "': " + e.why());
        }
      }
      if (args->rank >= 0) o.rank = args->rank;
      if (args->instance >= 0) o.instance = static_cast<std::size_t>(args->instance);
      bool const what_ifs = !o.what_ifs.empty();
      return ctx.run_analysis(
          args->common, read_options{}, args->table,
          [&](job_session const& session) {
            return critical_path_results(critical_path(session, o), session.model(), what_ifs);
          },
          [what_ifs] {
            event_table const empty;
            trace_model const model(empty);
            return critical_path_results({}, model, what_ifs);
          });
    };
  });
}

}  // namespace tracesweep::cli
