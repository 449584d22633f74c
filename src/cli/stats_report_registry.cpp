// SPDX-License-Identifier: Apache-2.0
// The stats reports, one entry each: the nine nsys summary reports, the per-row traces and
// NVTX reports, and nsys's GPU rules with their options.
#include "cli/stats_report_registry.hpp"

#include <tracesweep/error.hpp>
#include <tracesweep/reports/nsys/gpu_trace.hpp>
#include <tracesweep/reports/nsys/kernel_exec.hpp>
#include <tracesweep/reports/nsys/nvtx_kernels.hpp>
#include <tracesweep/reports/nsys/nvtx_projection.hpp>
#include <tracesweep/reports/nsys/nvtx_pushpop.hpp>
#include <tracesweep/reports/nsys/stats_reports.hpp>
#include <tracesweep/reports/nsys/stats_results.hpp>

#include <array>
#include <charconv>
#include <vector>

namespace tracesweep::cli {

void refuse_report(std::string const& text, std::string const& why) {
  throw usage_error("--report " + text + ": " + why);
}

namespace {

// ---- the nine summary reports ------------------------------------------------------------

/// The event kinds a summary report is computed from: the reader may leave every other kind
/// unread.
constexpr std::uint32_t kinds_of(stats_report r) {
  switch (r) {
    case stats_report::cuda_gpu_kern_sum:
    case stats_report::cuda_gpu_kern_gb_sum:
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
    case stats_report::cuda_gpu_sum:
      return gpu_operation_kinds;
    case stats_report::cuda_api_gpu_sum:
      return gpu_operation_kinds | kind_bit(event_kind::api_call);
  }
  return all_event_kinds;
}

template <stats_report R>
void summary_reads(report_spec const& spec, read_options& o) {
  o.kinds = kinds_of(R);
  if (spec.nvtx_name) o.kinds |= kind_bit(event_kind::api_call) | kind_bit(event_kind::user_range);
  o.launch_details = R == stats_report::cuda_gpu_kern_gb_sum;
  // Only the API ↔ GPU summary and the NVTX projection link rows by correlation.
  o.streams = o.correlations = R == stats_report::cuda_api_gpu_sum || spec.nvtx_name;
  if (spec.naming) o.kernel_names = *spec.naming;
}

template <stats_report R>
output::result_set summary_report(job_session const& s, report_call const& c) {
  return stats_results(
      compute_stats_report(s.model(), s.primitives(), R, c.merge, c.spec.nvtx_name));
}

/// cuda_gpu_kern_sum's options: base, mangled, nvtx-name.
void kernel_summary_option(report_spec& spec, std::string_view option) {
  if (option == "base")
    spec.naming = kernel_naming::base;
  else if (option == "mangled")
    spec.naming = kernel_naming::mangled;
  else if (option == "nvtx-name")
    spec.nvtx_name = true;
  else
    refuse_report(spec.text,
                  "unknown option " + std::string(option) + " (base, mangled or nvtx-name)");
}

template <stats_report R>
report_entry summary_entry() {
  report_entry e;
  e.name = to_string(R);
  e.reads = summary_reads<R>;
  e.kernel_names = true;
  e.compute = summary_report<R>;
  if constexpr (R == stats_report::cuda_gpu_kern_sum) {
    e.options_usage = "[:base|:mangled][:nvtx-name]";
    e.apply_option = kernel_summary_option;
  }
  return e;
}

// ---- per-row traces and the NVTX reports -------------------------------------------------

void kernel_exec_sum_reads(report_spec const&, read_options& o) {
  o.kinds = kind_bit(event_kind::kernel) | kind_bit(event_kind::api_call);
}

void kernel_exec_trace_reads(report_spec const& spec, read_options& o) {
  kernel_exec_sum_reads(spec, o);
  o.launch_details = true;
}

output::result_set kernel_exec_trace(job_session const& s, report_call const& c) {
  return kernel_exec_trace_results(compute_kernel_exec_trace(s.model(), c.merge));
}

output::result_set kernel_exec_sum(job_session const& s, report_call const& c) {
  return kernel_exec_sum_results(compute_kernel_exec_sum(s.model(), s.primitives(), c.merge));
}

void nvtx_projection_reads(report_spec const&, read_options& o) {
  o.kinds = gpu_operation_kinds | kind_bit(event_kind::api_call) | kind_bit(event_kind::user_range);
}

output::result_set nvtx_projection(job_session const& s, report_call const& c) {
  return nvtx_gpu_proj_sum_results(compute_nvtx_gpu_proj_sum(s.model(), s.primitives(), c.merge));
}

void nvtx_pushpop_reads(report_spec const&, read_options& o) {
  o.kinds = kind_bit(event_kind::user_range);
  o.range_sources = true;
}

output::result_set nvtx_pushpop(job_session const& s, report_call const& c) {
  return nvtx_pushpop_trace_results(compute_nvtx_pushpop_trace(s.model(), c.merge));
}

void nvtx_kernels_reads(report_spec const&, read_options& o) {
  o.kinds = kind_bit(event_kind::kernel) | kind_bit(event_kind::api_call) |
            kind_bit(event_kind::user_range);
}

output::result_set nvtx_kernels(job_session const& s, report_call const& c) {
  return nvtx_kern_sum_results(compute_nvtx_kern_sum(s.model(), s.primitives(), c.merge));
}

void gpu_trace_reads(report_spec const&, read_options& o) {
  o.kinds = gpu_operation_kinds;
  o.launch_details = true;
}

output::result_set gpu_trace(job_session const& s, report_call const& c) {
  return gpu_trace_results(compute_gpu_trace(s.model(), c.merge));
}

// ---- nsys's GPU rules ----------------------------------------------------------------------

/// A number ≥ 0 (an option's value).
double option_number(report_spec const& spec, std::string const& option, std::string_view value) {
  double v = 0;
  auto const [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc{} || p != value.data() + value.size() || !(v >= 0) ||
      v > 1e15)
    refuse_report(spec.text, option + " must be a number of 0 or more");
  return v;
}

/// A whole number in [low, high].
std::int64_t option_count(report_spec const& spec, std::string const& option,
                          std::string_view value, std::int64_t low, std::int64_t high) {
  auto const v = option_number(spec, option, value);
  if (v != static_cast<double>(static_cast<std::int64_t>(v)) || v < static_cast<double>(low) ||
      v > static_cast<double>(high))
    refuse_report(spec.text, option + " must be a whole number from " + std::to_string(low) +
                                 " to " + std::to_string(high));
  return static_cast<std::int64_t>(v);
}

/// KEY=VALUE of a rule's option; refuses one without "=".
std::pair<std::string, std::string_view> key_value(report_spec const& spec,
                                                   std::string_view option) {
  auto const eq = option.find('=');
  auto key = std::string(option.substr(0, eq));
  if (eq == std::string_view::npos) refuse_report(spec.text, "option " + key + " needs =VALUE");
  return {std::move(key), option.substr(eq + 1)};
}

constexpr std::int64_t most_rows = 1'000'000'000;

void gpu_gaps_option(report_spec& spec, std::string_view option) {
  auto const [key, value] = key_value(spec, option);
  if (key == "gap")
    spec.gaps.min_gap_ns = static_cast<std::int64_t>(option_number(spec, key, value) * 1e6);
  else if (key == "rows")
    spec.gaps.rows = static_cast<std::size_t>(option_count(spec, key, value, 0, most_rows));
  else
    refuse_report(spec.text, "unknown option " + key + " of gpu_gaps");
}

void gpu_time_util_option(report_spec& spec, std::string_view option) {
  auto const [key, value] = key_value(spec, option);
  if (key == "threshold")
    spec.util.threshold_pct = option_number(spec, key, value);
  else if (key == "chunks")
    spec.util.chunks = option_count(spec, key, value, 1, 1000);
  else if (key == "rows")
    spec.util.rows = static_cast<std::size_t>(option_count(spec, key, value, 0, most_rows));
  else
    refuse_report(spec.text, "unknown option " + key + " of gpu_time_util");
}

void gpu_rule_reads(report_spec const&, read_options& o) {
  o.kinds = gpu_operation_kinds;
  o.gpu_contexts = true;
}

output::result_set gpu_gaps(job_session const& s, report_call const& c) {
  return gpu_rule_results(compute_gpu_gaps(s.model(), c.spec.gaps));
}

output::result_set gpu_time_util(job_session const& s, report_call const& c) {
  return gpu_rule_results(compute_gpu_time_util(s.model(), c.spec.util));
}

constexpr std::string_view one_table_per_input =
    "the GPU rules print one table per input (no --merge)";

std::array const entries{
    summary_entry<stats_report::cuda_gpu_kern_sum>(),
    summary_entry<stats_report::cuda_gpu_mem_time_sum>(),
    summary_entry<stats_report::cuda_gpu_mem_size_sum>(),
    summary_entry<stats_report::cuda_api_sum>(),
    summary_entry<stats_report::nvtx_sum>(),
    summary_entry<stats_report::osrt_sum>(),
    summary_entry<stats_report::cuda_gpu_kern_gb_sum>(),
    summary_entry<stats_report::cuda_gpu_sum>(),
    summary_entry<stats_report::cuda_api_gpu_sum>(),
    report_entry{"cuda_gpu_trace", "", true, nullptr, gpu_trace_reads, false, "", gpu_trace},
    report_entry{"cuda_kern_exec_trace", "", true, nullptr, kernel_exec_trace_reads, false, "",
                 kernel_exec_trace},
    report_entry{"cuda_kern_exec_sum", "", true, nullptr, kernel_exec_sum_reads, false, "",
                 kernel_exec_sum},
    report_entry{"nvtx_kern_sum", "", true, nullptr, nvtx_kernels_reads, false, "", nvtx_kernels},
    report_entry{"nvtx_gpu_proj_sum", "", true, nullptr, nvtx_projection_reads, false, "",
                 nvtx_projection},
    report_entry{"nvtx_pushpop_trace", "", true, nullptr, nvtx_pushpop_reads, false, "",
                 nvtx_pushpop},
    report_entry{"gpu_gaps", "[:gap=MS][:rows=N]", false, gpu_gaps_option, gpu_rule_reads, false,
                 one_table_per_input, gpu_gaps},
    report_entry{"gpu_time_util", "[:threshold=PERCENT][:chunks=N][:rows=N]", false,
                 gpu_time_util_option, gpu_rule_reads, false, one_table_per_input, gpu_time_util},
};

}  // namespace

std::span<report_entry const> report_entries() {
  return entries;
}

std::pair<report_entry const*, report_spec> parse_report(std::string const& text) {
  std::vector<std::string_view> parts;
  std::string_view rest = text;
  for (auto colon = rest.find(':'); colon != std::string_view::npos; colon = rest.find(':')) {
    parts.push_back(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  parts.push_back(rest);
  report_spec spec;
  spec.text = text;
  report_entry const* entry = nullptr;
  for (auto const& e : entries)
    if (e.name == parts.front()) entry = &e;
  if (!entry) refuse_report(text, "unknown report");
  if (parts.size() > 1 && !entry->apply_option)
    refuse_report(text, std::string(entry->name) + " takes no options");
  for (std::size_t k = 1; k < parts.size(); ++k) entry->apply_option(spec, parts[k]);
  return {entry, std::move(spec)};
}

std::string report_help() {
  std::string bare, with_options;
  for (auto const& e : entries) {
    if (e.listed_bare) bare.append(e.name).append(", ");
    if (!e.options_usage.empty())
      with_options.append(with_options.empty() ? "" : ", ").append(e.name).append(e.options_usage);
  }
  return "Report to compute: " + bare + with_options;
}

}  // namespace tracesweep::cli
