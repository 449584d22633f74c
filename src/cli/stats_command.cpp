// SPDX-License-Identifier: Apache-2.0
// tracesweep stats --report NAME[:OPTION…]: the `nsys stats` summary reports, one table per
// input or one over all inputs with --merge, and nsys's gpu_gaps and gpu_time_util rules.
#include <tracesweep/error.hpp>
#include <tracesweep/gpu_rules.hpp>
#include <tracesweep/gpu_trace.hpp>
#include <tracesweep/kernel_exec.hpp>
#include <tracesweep/nvtx_kernels.hpp>
#include <tracesweep/nvtx_projection.hpp>
#include <tracesweep/nvtx_pushpop.hpp>
#include <tracesweep/stats_reports.hpp>
#include <tracesweep/stats_results.hpp>

#include <charconv>
#include <optional>
#include <string_view>

#include "cli/cli_context.hpp"

namespace tracesweep::cli {

namespace {

/// The event kinds a report is computed from: the reader may leave every other kind unread.
std::uint32_t kinds_of(stats_report r) {
  switch (r) {
    case stats_report::cuda_gpu_kern_sum:
      return kind_bit(event_kind::kernel);
    case stats_report::cuda_gpu_mem_time_sum:
    case stats_report::cuda_gpu_mem_size_sum:
      return kind_bit(event_kind::memcpy) | kind_bit(event_kind::memset);
    case stats_report::cuda_api_sum:
      return kind_bit(event_kind::api_call);
    case stats_report::nvtx_sum:
      return kind_bit(event_kind::user_range);
    case stats_report::osrt_sum:
      return kind_bit(event_kind::os_call);
    case stats_report::cuda_gpu_kern_gb_sum:
      return kind_bit(event_kind::kernel);
    case stats_report::cuda_gpu_sum:
      return gpu_operation_kinds;
    case stats_report::cuda_api_gpu_sum:
      return gpu_operation_kinds | kind_bit(event_kind::api_call);
  }
  return all_event_kinds;
}

struct stats_args {
  analysis_args common;
  std::string report;
  std::string names = "demangled";
  bool merge = false;
};

/// --report NAME[:OPTION…]: a summary report (options base, mangled for cuda_gpu_kern_sum) or
/// one of nsys's GPU rules (gpu_gaps: gap=MS, rows=N; gpu_time_util: threshold=PERCENT,
/// chunks=N, rows=N).
struct report_spec {
  std::optional<stats_report> summary;
  /// When not a summary: cuda_gpu_trace, cuda_kern_exec_trace, cuda_kern_exec_sum,
  /// nvtx_kern_sum, nvtx_gpu_proj_sum, nvtx_pushpop_trace, gpu_gaps or gpu_time_util.
  std::string rule;
  std::optional<kernel_naming> naming;
  bool nvtx_name = false;  ///< cuda_gpu_kern_sum:nvtx-name
  gpu_gaps_options gaps;
  gpu_time_util_options util;
};

[[noreturn]] void refuse(std::string const& text, std::string const& why) {
  throw usage_error("--report " + text + ": " + why);
}

/// A number ≥ 0 (an option's value).
double option_number(std::string const& text, std::string const& option, std::string_view value) {
  double v = 0;
  auto const [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc{} || p != value.data() + value.size() || !(v >= 0) ||
      v > 1e15)
    refuse(text, option + " must be a number of 0 or more");
  return v;
}

/// A whole number in [low, high].
std::int64_t option_count(std::string const& text, std::string const& option,
                          std::string_view value, std::int64_t low, std::int64_t high) {
  auto const v = option_number(text, option, value);
  if (v != static_cast<double>(static_cast<std::int64_t>(v)) || v < static_cast<double>(low) ||
      v > static_cast<double>(high))
    refuse(text, option + " must be a whole number from " + std::to_string(low) + " to " +
                     std::to_string(high));
  return static_cast<std::int64_t>(v);
}

void apply_rule_option(report_spec& r, std::string const& text, std::string_view item) {
  auto const eq = item.find('=');
  auto const key = std::string(item.substr(0, eq));
  auto const value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
  if (eq == std::string_view::npos) refuse(text, "option " + key + " needs =VALUE");
  constexpr std::int64_t most_rows = 1'000'000'000;
  if (r.rule == "gpu_gaps" && key == "gap")
    r.gaps.min_gap_ns = static_cast<std::int64_t>(option_number(text, key, value) * 1e6);
  else if (r.rule == "gpu_gaps" && key == "rows")
    r.gaps.rows = static_cast<std::size_t>(option_count(text, key, value, 0, most_rows));
  else if (r.rule == "gpu_time_util" && key == "threshold")
    r.util.threshold_pct = option_number(text, key, value);
  else if (r.rule == "gpu_time_util" && key == "chunks")
    r.util.chunks = option_count(text, key, value, 1, 1000);
  else if (r.rule == "gpu_time_util" && key == "rows")
    r.util.rows = static_cast<std::size_t>(option_count(text, key, value, 0, most_rows));
  else
    refuse(text, "unknown option " + key + " of " + r.rule);
}

report_spec parse_report(std::string const& text) {
  std::vector<std::string_view> parts;
  std::string_view rest = text;
  for (auto colon = rest.find(':'); colon != std::string_view::npos; colon = rest.find(':')) {
    parts.push_back(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  parts.push_back(rest);
  report_spec r;
  auto const name = std::string(parts.front());
  if (name == "cuda_gpu_trace" || name == "cuda_kern_exec_trace" || name == "cuda_kern_exec_sum" ||
      name == "nvtx_kern_sum" || name == "nvtx_gpu_proj_sum" || name == "nvtx_pushpop_trace") {
    if (parts.size() > 1) refuse(text, name + " takes no options");
    r.rule = name;
    return r;
  }
  if (name == "gpu_gaps" || name == "gpu_time_util") {
    r.rule = name;
    for (std::size_t k = 1; k < parts.size(); ++k) apply_rule_option(r, text, parts[k]);
    return r;
  }
  r.summary = parse_stats_report(name);
  if (!r.summary) refuse(text, "unknown report");
  for (std::size_t k = 1; k < parts.size(); ++k) {
    if (*r.summary != stats_report::cuda_gpu_kern_sum) refuse(text, name + " takes no options");
    if (parts[k] == "base")
      r.naming = kernel_naming::base;
    else if (parts[k] == "mangled")
      r.naming = kernel_naming::mangled;
    else if (parts[k] == "nvtx-name")
      r.nvtx_name = true;
    else
      refuse(text, "unknown option " + std::string(parts[k]) + " (base, mangled or nvtx-name)");
  }
  return r;
}

}  // namespace

void add_stats_command(CLI::App& app, context& ctx) {
  std::string listed;
  for (auto r : all_stats_reports) listed.append(to_string(r)).append(", ");
  auto [args, cmd] = add_command<stats_args>(app, "stats", "nsys-stats-compatible summary reports");
  add_analysis_options(cmd, args->common, false);
  cmd->add_option("--report", args->report,
                  "Report to compute: " + listed +
                      "cuda_gpu_trace, cuda_kern_exec_trace, cuda_kern_exec_sum, nvtx_kern_sum, "
                      "nvtx_gpu_proj_sum, nvtx_pushpop_trace, "
                      "cuda_gpu_kern_sum[:base|:mangled][:nvtx-name], "
                      "gpu_gaps[:gap=MS][:rows=N], "
                      "gpu_time_util[:threshold=PERCENT][:chunks=N][:rows=N]")
      ->required();
  cmd->add_option("--name", args->names,
                  "Kernel names: demangled, base (shortName) or mangled (nsys exports)")
      ->check(CLI::IsMember({"demangled", "base", "mangled"}))
      ->capture_default_str();
  cmd->add_flag("--merge", args->merge, "One table over all inputs instead of one per input");
  cmd->callback([&ctx, args] {
    ctx.run = [&ctx, args] {
      auto const spec = parse_report(args->report);
      read_options options;
      if (spec.rule == "cuda_kern_exec_trace" || spec.rule == "cuda_kern_exec_sum") {
        options.kinds = kind_bit(event_kind::kernel) | kind_bit(event_kind::api_call);
        options.launch_details = spec.rule == "cuda_kern_exec_trace";
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          auto& be = session.primitives();
          return spec.rule == "cuda_kern_exec_trace"
                     ? kernel_exec_trace_results(compute_kernel_exec_trace(model, args->merge))
                     : kernel_exec_sum_results(compute_kernel_exec_sum(model, be, args->merge));
        });
      }
      if (spec.rule == "nvtx_gpu_proj_sum") {
        options.kinds =
            gpu_operation_kinds | kind_bit(event_kind::api_call) | kind_bit(event_kind::user_range);
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          auto& be = session.primitives();
          return nvtx_gpu_proj_sum_results(compute_nvtx_gpu_proj_sum(model, be, args->merge));
        });
      }
      if (spec.rule == "nvtx_pushpop_trace") {
        options.kinds = kind_bit(event_kind::user_range);
        options.range_sources = true;
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          return nvtx_pushpop_trace_results(compute_nvtx_pushpop_trace(model, args->merge));
        });
      }
      if (spec.rule == "nvtx_kern_sum") {
        options.kinds = kind_bit(event_kind::kernel) | kind_bit(event_kind::api_call) |
                        kind_bit(event_kind::user_range);
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          auto& be = session.primitives();
          return nvtx_kern_sum_results(compute_nvtx_kern_sum(model, be, args->merge));
        });
      }
      if (spec.rule == "cuda_gpu_trace") {
        options.kinds = gpu_operation_kinds;
        options.launch_details = true;
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          return gpu_trace_results(compute_gpu_trace(model, args->merge));
        });
      }
      if (!spec.summary) {
        if (args->merge)
          refuse(args->report, "the GPU rules print one table per input (no --merge)");
        options.kinds = gpu_operation_kinds;
        options.gpu_contexts = true;
        return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
          auto const& model = session.model();
          return gpu_rule_results(spec.rule == "gpu_gaps"
                                      ? compute_gpu_gaps(model, spec.gaps)
                                      : compute_gpu_time_util(model, spec.util));
        });
      }
      auto const report = *spec.summary;
      options.kinds = kinds_of(report);
      if (spec.nvtx_name)
        options.kinds |= kind_bit(event_kind::api_call) | kind_bit(event_kind::user_range);
      options.launch_details = report == stats_report::cuda_gpu_kern_gb_sum;
      // Only the API ↔ GPU summary and the NVTX projection link rows by correlation.
      options.streams_and_correlations = report == stats_report::cuda_api_gpu_sum || spec.nvtx_name;
      if (args->names == "base") options.kernel_names = kernel_naming::base;
      if (args->names == "mangled") options.kernel_names = kernel_naming::mangled;
      if (spec.naming) options.kernel_names = *spec.naming;
      return ctx.run_analysis(args->common, options, "", [&](job_session const& session) {
        auto const& model = session.model();
        auto& be = session.primitives();
        return stats_results(compute_stats_report(model, be, report, args->merge, spec.nvtx_name));
      });
    };
  });
}

}  // namespace tracesweep::cli
