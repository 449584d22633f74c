// SPDX-License-Identifier: Apache-2.0
// Job tables → result tables. Text and CSV share flat tables (one row per rank and item; text in
// ms or µs, CSV in integer ns); JSON gets the results nested per rank (tb: per input). A few text
// cells combine values the way Paddle and the TensorBoard plugin print them ("12.345 (steps)",
// "812 (45.67%)", indented stage names); those are text-only string columns. The TensorBoard
// plugin's tables are in tensorboard/tb_results.cpp.
#include "reports/job_table_results.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "reports/result_columns.hpp"

namespace tracesweep::tables {

using namespace result_columns;

// ---- text and CSV ----------------------------------------------------------------------------

constexpr char const* overview_title =
    "Overview Summary (host rows: CPU time = union over threads; device rows: GPU time = union "
    "over devices and streams; stage rows: outermost events, durations added)";
constexpr char const* model_title =
    "Model Summary (CPU: durations of steps and outermost stages; GPU: kernel time launched "
    "inside, streams summed; CPU ratio over the denominator, GPU ratio over the step row)";

result_table overview_flat(std::vector<rank_overview> const& v) {
  auto t = ranked("overview", overview_title);
  add_text_and_flat(t, "side", string, "Side");
  t.add("type", string, {}, "Event Type");
  t.add("calls", integer, {}, "Calls");
  add_time(t, "time_ns", integer, "Time (ms)");
  add_ratio(t, "ratio", "Ratio (%)");
  t.add("rule", string, {}, "Rule");
  add_text_and_flat(t, "total_ns", integer, "Denominator (ms)");
  for (auto const& r : v)
    for (auto const& x : r.rows)
      t.add_row({i64(r.rank), x.device ? "GPU" : "CPU", x.device ? "device" : "host", x.type,
                 i64(x.calls), i64(x.time_ns), x.ratio, x.rule,
                 ms(r.total_ns) + " (" + r.total_from + ")", i64(r.total_ns)});
  return t;
}

result_table model_flat(std::vector<rank_model_summary> const& v) {
  auto t = ranked("model", model_title);
  add_text_and_flat(t, "name", string, "Name");
  t.add("calls", integer, {}, "Calls");
  for (std::string side : {"cpu", "gpu"}) {
    std::string const upper = side == "cpu" ? "CPU" : "GPU";
    add_time(t, side + "_total_ns", integer, upper + " Total (ms)");
    add_time(t, side + "_avg_ns", real, upper + " Avg (ms)");
    add_time(t, side + "_max_ns", integer, upper + " Max (ms)");
    add_time(t, side + "_min_ns", integer, upper + " Min (ms)");
    add_ratio(t, side + "_ratio", upper + " Ratio (%)");
  }
  for (auto const& r : v)
    for (auto const& m : r.items) {
      auto unless_others = [&](cell c) { return m.others ? cell{} : c; };
      bool const top = m.others || m.name == "ProfileStep" || m.name == "ProfilerStep";
      t.add_row({i64(r.rank), top ? m.name : "  " + m.name, m.name, unless_others(i64(m.calls)),
                 i64(m.cpu_total_ns), unless_others(m.cpu_avg_ns), unless_others(i64(m.cpu_max_ns)),
                 unless_others(i64(m.cpu_min_ns)), m.cpu_ratio, i64(m.gpu_total_ns),
                 unless_others(m.gpu_avg_ns), unless_others(i64(m.gpu_max_ns)),
                 unless_others(i64(m.gpu_min_ns)), m.gpu_ratio});
    }
  return t;
}

/// x / total, 0 when total is 0.
namespace {

double ratio(std::int64_t x, std::int64_t total) {
  return total > 0 ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
}

}  // namespace

result_table distributed_flat(distributed_summary const& d) {
  auto t = ranked("distributed",
                  fmt::format("Distributed Summary (communication = |∪ comm|, computation = |∪ "
                              "compute|, overlap = |comm ∩ compute|; ratios over the denominator); "
                              "slowest rank: {}",
                              d.slowest_rank));
  t.add("steps", integer, {}, "Steps");
  add_time(t, "mean_step_ns", real, "Mean Step (ms)");
  add_time(t, "total_ns", integer, "Denominator (ms)");
  add_time(t, "communication_ns", integer, "Communication (ms)");
  add_ratio(t, "communication_ratio", "Comm (%)");
  add_time(t, "computation_ns", integer, "Computation (ms)");
  add_ratio(t, "computation_ratio", "Comp (%)");
  add_time(t, "overlap_ns", integer, "Overlap (ms)");
  add_ratio(t, "overlap_ratio", "Overlap (%)");
  for (auto const& r : d.ranks)
    t.add_row({i64(r.rank), i64(r.steps), r.mean_step_ns, i64(r.total_ns), i64(r.communication_ns),
               ratio(r.communication_ns, r.total_ns), i64(r.computation_ns),
               ratio(r.computation_ns, r.total_ns), i64(r.overlap_ns),
               ratio(r.overlap_ns, r.total_ns)});
  return t;
}

/// Metric, min, median, max across ranks (text: "Across ranks"; JSON: across_ranks).
namespace {

result_table across(distributed_summary const& d, result_table t) {
  t.add("metric", string, {}, "Metric");
  add_time(t, "min_ns", real, "Min (ms)");
  add_time(t, "median_ns", real, "Median (ms)");
  add_time(t, "max_ns", real, "Max (ms)");
  for (auto const& a : d.across) t.add_row({a.metric, a.min, a.median, a.max});
  return t;
}

}  // namespace

result_table across_ranks_table(distributed_summary const& d) {
  return across(d, grid("across_ranks", "Across ranks", text_views));
}

result_table kernels_flat(std::vector<rank_kernel_table> const& v) {
  auto t = ranked("kernels",
                  "Kernel Summary (kernels by full name; ratio over all kernel time of the rank)");
  t.add("name", string, {}, "Name").symbol = true;
  t.add("calls", integer, {}, "Calls");
  add_time(t, "total_ns", integer, "Total (ms)");
  add_time(t, "avg_ns", real, "Avg (ms)");
  add_time(t, "max_ns", integer, "Max (ms)");
  add_time(t, "min_ns", integer, "Min (ms)");
  add_ratio(t, "ratio", "Ratio (%)");
  for (auto const& r : v)
    for (auto const& k : r.rows)
      t.add_row({i64(r.rank), k.name, i64(k.calls), i64(k.total_ns), k.avg_ns, i64(k.max_ns),
                 i64(k.min_ns), k.ratio});
  return t;
}

constexpr char const* operators_title =
    "Operator Summary (host: durations, self = not covered by directly nested host rows; device: "
    "kernels, memcpy and memset launched in the subtree, self = by calls whose innermost operator "
    "it is)";

/// Paddle's per-instance columns of one side ("host" / "device"): avg, max, min, ratio.
namespace {

void add_paddle_side(result_table& t, std::string const& side, std::string const& upper) {
  add_time(t, side + "_avg_ns", real, upper + " Avg (ms)");
  add_time(t, side + "_max_ns", integer, upper + " Max (ms)");
  add_time(t, side + "_min_ns", integer, upper + " Min (ms)");
  add_ratio(t, side + "_ratio", upper + " Ratio (%)");
}

}  // namespace

result_table operators_flat(std::vector<rank_operator_table> const& v) {
  bool const paddle = std::any_of(v.begin(), v.end(), [](auto const& r) { return r.paddle; });
  auto t = ranked("operators", operators_title);
  t.add("name", string, {}, "Name");
  t.add("calls", integer, {}, "Calls");
  add_time(t, "host_total_ns", integer, "Host Total (ms)");
  add_time(t, "host_self_ns", integer, "Host Self (ms)");
  if (paddle) add_paddle_side(t, "host", "Host");
  add_time(t, "device_total_ns", integer, "Device Total (ms)");
  add_time(t, "device_self_ns", integer, "Device Self (ms)");
  if (paddle) add_paddle_side(t, "device", "Device");
  for (auto const& r : v)
    for (auto const& o : r.rows) {
      std::vector<cell> cells = {i64(r.rank), o.name, i64(o.calls), i64(o.host_total_ns),
                                 i64(o.host_self_ns)};
      auto paddle_side = [&](double avg, std::int64_t max, std::int64_t min, double share) {
        if (paddle) cells.insert(cells.end(), {avg, i64(max), i64(min), share});
      };
      paddle_side(o.host_avg_ns, o.host_max_ns, o.host_min_ns, o.host_ratio);
      cells.insert(cells.end(), {i64(o.device_total_ns), i64(o.device_self_ns)});
      paddle_side(o.device_avg_ns, o.device_max_ns, o.device_min_ns, o.device_ratio);
      t.add_row(std::move(cells));
    }
  return t;
}

/// Paddle's op_detail: per operator its inner items, the device rows under each (indented) and its
/// own device rows ("(self) "); CSV and JSON name the inner item and the device row apart.
result_table operator_detail_table(std::vector<rank_operator_detail> const& v) {
  auto t = ranked("operator_detail",
                  "Operator detail (inner items: CPU and GPU over the operator; device rows: GPU "
                  "over their item, or over the operator for its own)",
                  output::all_views);
  t.add("operator", string, {}, "Operator");
  add_in(t, text_views, "item", string, "Item");
  add_in(t, flat_only | output::json, "inner", string);
  add_in(t, flat_only | output::json, "kernel", string);
  t.add("calls", integer, {}, "Calls");
  add_time(t, "cpu_total_ns", integer, "CPU Total (ms)").flat_null = std::string(1, '-');
  add_ratio(t, "cpu_ratio", "CPU Ratio (%)").flat_null = std::string(1, '-');
  add_time(t, "gpu_total_ns", integer, "GPU Total (ms)");
  add_ratio(t, "gpu_ratio", "GPU Ratio (%)");
  for (auto const& r : v)
    for (auto const& d : r.rows) {
      bool const device = !d.kernel.empty();
      std::string shown = !device ? "" : d.inner.empty() ? "(self) " : "  ";
      shown += device ? d.kernel : d.inner;
      t.add_row({i64(r.rank), d.op, std::move(shown), d.inner, d.kernel, i64(d.calls),
                 device ? cell{} : i64(d.cpu_total_ns), device ? cell{} : cell{d.cpu_ratio},
                 i64(d.gpu_total_ns), d.gpu_ratio});
    }
  return t;
}

// ---- JSON ------------------------------------------------------------------------------------

/// Adds columns of one type, in order.

result_table overview_json(std::vector<rank_overview> const& v) {
  auto t = tree("overview");
  add_all(t, integer, {"rank", "total_ns"});
  t.add("total_from", string);
  t.add("rows", nested);
  for (auto const& r : v) {
    auto rows = tree("rows");
    add_all(rows, string, {"type", "side"});
    add_all(rows, integer, {"calls", "time_ns"});
    rows.add("ratio", real);
    rows.add("rule", string);
    for (auto const& x : r.rows)
      rows.add_row(
          {x.type, x.device ? "device" : "host", i64(x.calls), i64(x.time_ns), x.ratio, x.rule});
    t.add_row({i64(r.rank), i64(r.total_ns), r.total_from, nest(std::move(rows))});
  }
  return t;
}

result_table model_json(std::vector<rank_model_summary> const& v) {
  auto t = tree("model");
  add_all(t, integer, {"rank", "total_ns"});
  t.add("items", nested);
  for (auto const& r : v) {
    auto items = tree("items");
    items.add("name", string);
    items.add("calls", integer);
    for (std::string side : {"cpu_", "gpu_"}) {
      items.add(side + "avg_ns", real);
      items.add(side + "max_ns", integer);
      items.add(side + "min_ns", integer);
    }
    for (auto& c : items.columns) c.json_omit_null = true;  // the Others row has only totals
    for (std::string side : {"cpu_", "gpu_"}) {
      items.add(side + "total_ns", integer);
      items.add(side + "ratio", real);
    }
    for (auto const& m : r.items) {
      auto unless_others = [&](cell c) { return m.others ? cell{} : c; };
      items.add_row({m.name, unless_others(i64(m.calls)), unless_others(m.cpu_avg_ns),
                     unless_others(i64(m.cpu_max_ns)), unless_others(i64(m.cpu_min_ns)),
                     unless_others(m.gpu_avg_ns), unless_others(i64(m.gpu_max_ns)),
                     unless_others(i64(m.gpu_min_ns)), i64(m.cpu_total_ns), m.cpu_ratio,
                     i64(m.gpu_total_ns), m.gpu_ratio});
    }
    t.add_row({i64(r.rank), i64(r.total_ns), nest(std::move(items))});
  }
  return t;
}

result_table distributed_json(distributed_summary const& d) {
  auto t = tree("distributed", output::json_shape::object);
  t.add("slowest_rank", integer);
  add_all(t, nested, {"ranks", "across_ranks"});
  auto ranks = tree("ranks");
  add_all(ranks, integer, {"rank", "steps"});
  ranks.add("mean_step_ns", real);
  add_all(ranks, integer, {"total_ns", "communication_ns", "computation_ns", "overlap_ns"});
  add_all(ranks, real, {"communication_ratio", "computation_ratio", "overlap_ratio"});  // as CSV
  for (auto const& r : d.ranks)
    ranks.add_row({i64(r.rank), i64(r.steps), r.mean_step_ns, i64(r.total_ns),
                   i64(r.communication_ns), i64(r.computation_ns), i64(r.overlap_ns),
                   ratio(r.communication_ns, r.total_ns), ratio(r.computation_ns, r.total_ns),
                   ratio(r.overlap_ns, r.total_ns)});
  t.add_row({i64(d.slowest_rank), nest(std::move(ranks)), nest(across(d, tree("across_ranks")))});
  return t;
}

result_table kernels_json(std::vector<rank_kernel_table> const& v) {
  auto t = tree("kernels");
  t.add("rank", integer);
  t.add("rows", nested);
  for (auto const& r : v) {
    auto rows = tree("rows");
    rows.add("name", string);
    add_all(rows, integer, {"calls", "total_ns"});
    rows.add("avg_ns", real);
    add_all(rows, integer, {"max_ns", "min_ns"});
    rows.add("ratio", real);
    for (auto const& k : r.rows)
      rows.add_row(
          {k.name, i64(k.calls), i64(k.total_ns), k.avg_ns, i64(k.max_ns), i64(k.min_ns), k.ratio});
    t.add_row({i64(r.rank), nest(std::move(rows))});
  }
  return t;
}

result_table operators_json(std::vector<rank_operator_table> const& v) {
  auto t = tree("operators");
  t.add("rank", integer);
  t.add("rows", nested);
  for (auto const& r : v) {
    auto rows = tree("rows");
    rows.add("name", string);
    add_all(rows, integer,
            {"calls", "host_total_ns", "host_self_ns", "device_total_ns", "device_self_ns",
             "host_max_ns", "host_min_ns", "device_max_ns", "device_min_ns"});
    add_all(rows, real, {"host_avg_ns", "device_avg_ns", "host_ratio", "device_ratio"});
    for (auto const& o : r.rows)
      rows.add_row({o.name, i64(o.calls), i64(o.host_total_ns), i64(o.host_self_ns),
                    i64(o.device_total_ns), i64(o.device_self_ns), i64(o.host_max_ns),
                    i64(o.host_min_ns), i64(o.device_max_ns), i64(o.device_min_ns), o.host_avg_ns,
                    o.device_avg_ns, o.host_ratio, o.device_ratio});
    t.add_row({i64(r.rank), nest(std::move(rows))});
  }
  return t;
}

}  // namespace tracesweep::tables
