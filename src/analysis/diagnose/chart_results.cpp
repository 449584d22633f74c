// SPDX-License-Identifier: Apache-2.0
// The diagnosis's charts on the HTML page (and the timeline in JSON): GPU utilization over time,
// the idle time and the count of the gaps by duration bin and cause, mean step time per rank.
#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/exact_stats.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose_parts.hpp"
#include "reports/result_columns.hpp"

namespace tracesweep {

namespace {

using output::cell, output::result_table;
using enum output::value_type;
using diagnose_detail::diagnose_table;
using diagnose_detail::where_cells;
using tables::result_columns::i64;

/// One colour per cause, the same in every chart.
std::vector<std::pair<std::string, std::string>> cause_colours() {
  constexpr char const* css[idle_cause_count] = {"#d62728", "#ff7f0e", "#9467bd", "#2ca02c",
                                                 "#8c564b", "#1f77b4", "#7f7f7f"};
  std::vector<std::pair<std::string, std::string>> out;
  for (int c = 0; c < idle_cause_count; ++c)
    out.emplace_back(std::string(to_string(static_cast<idle_cause>(c))), css[c]);
  return out;
}

std::string device_label(device_key const& w) {
  return fmt::format("rank {} GPU {}", w.rank, w.device);
}

}  // namespace

result_table diagnose_timeline(diagnosis const& d) {
  auto t = diagnose_table("timeline", "GPU utilization over time", output::json | output::html);
  t.add("input", integer).views = output::json;
  t.add("rank", integer).views = output::json;
  t.add("device", integer).views = output::json;
  t.add("gpu", string).views = output::html;
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns").views = output::json;
  t.add("busy_share", real, "fraction");
  t.plot = {output::chart_kind::line, "start_ns", "busy_share", "gpu", "time", "busy", {}, true};
  // GPUs in a fixed order of colours (the page's palette would do; fixed ones can be checked).
  constexpr char const* css[] = {"#17becf", "#bcbd22", "#e377c2", "#393b79", "#637939", "#8c6d31"};
  std::vector<std::string> labels;
  for (auto const& b : d.timeline)
    if (labels.empty() || labels.back() != device_label(b.where))
      labels.push_back(device_label(b.where));
  for (std::size_t k = 0; k < labels.size() && k < std::size(css); ++k)
    t.plot.colors.emplace_back(labels[k], css[k]);
  // timeline_bins rows a device (200): made as they are written, as the gaps.
  t.generated_rows = d.timeline.size();
  t.generate = [&bins = d.timeline](std::size_t i) {
    auto const& b = bins[i];
    output::row r;
    where_cells(r.cells, b.where);
    r.cells.insert(r.cells.end(),
                   {device_label(b.where), i64(b.start_ns), i64(b.end_ns), b.busy_share});
    return r;
  };
  return t;
}

namespace {

/// The 1-2-5 bin edges from 1 ns up to the first edge past the longest gap.
std::vector<std::int64_t> gap_bin_edges(std::int64_t longest) {
  std::vector<std::int64_t> edges;
  for (std::int64_t decade = 1;; decade *= 10) {
    for (std::int64_t m : {1, 2, 5})
      if (decade * m <= longest || edges.empty() || edges.back() <= longest)
        edges.push_back(decade * m);
    if (decade > longest / 10) break;  // 10 × decade > longest (and would not overflow)
  }
  return edges;
}

std::string gap_bin_label(std::int64_t ns) {
  if (ns >= 1'000'000) return fmt::format("{:g} ms+", static_cast<double>(ns) / 1e6);
  if (ns >= 1'000) return fmt::format("{:g} us+", static_cast<double>(ns) / 1e3);
  return fmt::format("{} ns+", ns);
}

/// Every examined gap in 1-2-5 duration bins by cause: (bin, cause) → (gaps, idle ns).
std::map<std::pair<std::size_t, int>, std::pair<std::int64_t, std::int64_t>> gap_bins(
    diagnosis const& d, std::vector<std::int64_t>& edges) {
  std::map<std::pair<std::size_t, int>, std::pair<std::int64_t, std::int64_t>> bins;
  if (d.gap_durations.empty()) return bins;
  edges = gap_bin_edges(*std::max_element(d.gap_durations.begin(), d.gap_durations.end()));
  for (std::size_t i = 0; i < d.gap_durations.size(); ++i) {
    auto const bin = static_cast<std::size_t>(
        std::upper_bound(edges.begin(), edges.end(), d.gap_durations[i]) - edges.begin() - 1);
    auto& [n, ns] = bins[{bin, static_cast<int>(d.gap_causes[i])}];
    ++n;
    ns = checked_add(ns, d.gap_durations[i], "the idle time of a gap bin");
  }
  return bins;
}

/// The gaps by duration bin and cause as a stacked bar chart of `what`: their idle time (what
/// the verdicts weigh: a few long gaps outweigh many short ones) or their count.
result_table gap_chart(diagnosis const& d, bool time) {
  auto t = time ? diagnose_table("gap_time", "Idle time by gap duration and cause", output::html)
                : diagnose_table("gap_histogram", "Idle gaps by duration and cause (count)",
                                 output::html);
  t.add("bin", string);
  t.add("cause", string);
  if (time) {
    auto& c = t.add("idle_ns", integer, "ns");
    c.label = "idle (ms)";
    c.text_unit = "ms";
    c.decimals = 3;
  } else {
    t.add("count", integer);
  }
  t.plot = {output::chart_kind::stacked_bars,
            "bin",
            time ? "idle_ns" : "count",
            "cause",
            "gap duration",
            time ? "idle time" : "gaps",
            cause_colours(),
            true};
  std::vector<std::int64_t> edges;
  for (auto const& [k, v] : gap_bins(d, edges))
    t.add_row({gap_bin_label(edges[k.first]),
               std::string(to_string(static_cast<idle_cause>(k.second))),
               std::int64_t{time ? v.second : v.first}});
  return t;
}

}  // namespace

result_table diagnose_gap_time(diagnosis const& d) {
  return gap_chart(d, true);
}
result_table diagnose_gap_histogram(diagnosis const& d) {
  return gap_chart(d, false);
}

/// Mean step time per rank as a bar chart near the top of the page (the ranks table has it too).
result_table diagnose_step_times(diagnosis const& d) {
  auto t = diagnose_table("step_times", "Mean step time per rank", output::html);
  t.add("rank", string);
  t.add("mean_step_ns", integer, "ns");
  t.plot = {output::chart_kind::bars, "rank", "mean_step_ns", "", "rank", "mean step",
            {{"", "#6b6ecf"}},        true};
  for (auto const& r : d.ranks) t.add_row({fmt::format("rank {}", r.rank), i64(r.mean_step_ns)});
  return t;
}

}  // namespace tracesweep
