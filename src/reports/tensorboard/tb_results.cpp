// SPDX-License-Identifier: Apache-2.0
// The TensorBoard plugin's tables as result tables (--compat tb): the overview's step time
// breakdown, GPUs and kernels, and the operator view; text and CSV flat, JSON nested per input.
#include "reports/job_table_results.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/result_columns.hpp"

namespace tracesweep::tables {

using namespace result_columns;

// ---- text and CSV ----------------------------------------------------------------------------

/// The plugin's operator view columns, in its order.
constexpr std::array<char const*, 4> tb_operator_keys = {
    "device_self_duration", "device_total_duration", "host_self_duration", "host_total_duration"};
/// The same in ns, as CSV names them.
constexpr std::array<char const*, 4> tb_operator_ns_keys = {"device_self_ns", "device_total_ns",
                                                            "host_self_ns", "host_total_ns"};

namespace {

std::array<std::int64_t, 4> tb_operator_values(operator_row const& o) {
  return {o.device_self_ns, o.device_total_ns, o.host_self_ns, o.host_total_ns};
}

}  // namespace

result_table tb_operators_flat(std::vector<tb_operator_table> const& v) {
  auto t = ranked("tb_operators", "Operator view (plugin rules; integer us)");
  t.add("name", string, {}, "Name");
  t.add("calls", integer, {}, "Calls");
  add_time(t, "device_self_ns", integer, "Device Self (us)", "us");
  add_time(t, "device_total_ns", integer, "Device Total (us)", "us");
  add_time(t, "host_self_ns", integer, "Host Self (us)", "us");
  add_time(t, "host_total_ns", integer, "Host Total (us)", "us");
  for (auto const& o : v)
    for (auto const& r : o.rows) {
      std::vector<cell> cells = {i64(o.rank), r.name, i64(r.calls)};
      for (auto x : tb_operator_values(r)) cells.push_back(i64(x));
      t.add_row(std::move(cells));
    }
  return t;
}

constexpr char const* tb_role_keys[] = {"kernel",  "memcpy",      "memset",   "communication",
                                        "runtime", "data_loader", "cpu_exec", "other"};

result_table tb_flat(std::vector<tb_overview> const& v) {
  auto t =
      grid("tb", "TensorBoard plugin overview: step time breakdown (plugin rules; integer us)");
  t.add("rank", integer, {}, "Rank");
  t.add("step", string, {}, "Step").text_align = output::align::right;
  add_time(t, "total_ns", real, "Total (us)", "us");
  for (int k = 0; k < tb_role_count; ++k) {
    auto const i = static_cast<std::size_t>(k);
    add_text_and_flat(t, std::string(tb_role_keys[i]) + "_ns", real,
                      std::string(tb_role_names[i]) + " (us)");
  }
  for (auto const& o : v) {
    auto add = [&](std::string step, double total, auto const& costs) {
      std::vector<cell> cells = {i64(o.rank), std::move(step), total};
      for (int k = 0; k < tb_role_count; ++k) {
        auto const x = static_cast<double>(costs[static_cast<std::size_t>(k)]);
        cells.emplace_back(k == static_cast<int>(tb_role::communication) && !o.has_communication
                               ? std::string("-")
                               : fmt::format("{} ({:.2f}%)", us_round(x),
                                             total > 0 ? round2(100.0 * x / total) : 0.0));
        cells.emplace_back(x);
      }
      t.add_row(std::move(cells));
    };
    for (auto const& s : o.steps) add(s.name, static_cast<double>(s.total_ns()), s.cost_ns);
    add("average", o.avg_step_ns, o.avg_cost_ns);
  }
  return t;
}

result_table tb_gpus_flat(std::vector<tb_overview> const& v) {
  auto t = ranked("tb_gpus", "GPU summary (over all steps)", text_views);
  t.add("device", integer, {}, "GPU");
  add_ratio(t, "utilization", "GPU Utilization (%)");
  add_ratio(t, "sm_efficiency", "Est. SM Efficiency (%)");
  t.add("occupancy_pct", real, "%", "Est. Achieved Occupancy (%)").decimals = 2;
  for (auto const& o : v)
    for (auto const& x : o.gpus)
      t.add_row({i64(o.rank), i64(x.device), x.utilization,
                 x.sm_efficiency ? cell(*x.sm_efficiency) : cell{},
                 x.occupancy_pct ? cell(*x.occupancy_pct) : cell{}});
  return t;
}

result_table tb_kernels_flat(std::vector<tb_overview> const& v) {
  auto t = ranked("tb_kernels", "Kernel table (all kernels; duration-weighted means)");
  t.add("name", string, {}, "Name").symbol = true;
  t.add("calls", integer, {}, "Calls");
  add_time(t, "total_ns", integer, "Total (us)", "us");
  add_time(t, "mean_ns", real, "Mean (us)", "us");
  add_time(t, "max_ns", integer, "Max (us)", "us");
  add_time(t, "min_ns", integer, "Min (us)", "us");
  t.add("blocks_per_sm", real, {}, "Mean Blocks Per SM").decimals = 2;
  t.add("occupancy_pct", real, "%", "Mean Est. Achieved Occupancy (%)").decimals = 2;
  for (auto const& o : v)
    for (auto const& k : o.kernels)
      t.add_row({i64(o.rank), k.name, i64(k.calls), i64(k.total_ns), k.mean_ns, i64(k.max_ns),
                 i64(k.min_ns), k.blocks_per_sm, k.occupancy_pct});
  return t;
}

// ---- JSON ------------------------------------------------------------------------------------

/// One input's tb overview: steps, the average step ("Average Step Time": value = round(µs),
/// extra = round(100·part/total, 2)), GPUs and kernels.
namespace {

std::vector<cell> tb_json_row(tb_overview const& o) {
  auto steps = tree("steps");
  steps.add("step", string);
  add_all(steps, integer, {"start_ns", "end_ns", "total_ns"});
  for (auto const* k : tb_role_keys) steps.add(std::string(k) + "_ns", integer);
  for (auto const& s : o.steps) {
    std::vector<cell> cells = {s.name, i64(s.start_ns), i64(s.end_ns), i64(s.total_ns())};
    for (auto x : s.cost_ns) cells.emplace_back(x);
    steps.add_row(std::move(cells));
  }
  auto parts = tree("parts");
  parts.add("name", string);
  parts.add("ns", real);
  parts.add("us", integer);
  parts.add("percent", real);
  for (std::size_t k = 0; k < tb_role_names.size(); ++k) {
    auto const x = o.avg_cost_ns[k];
    parts.add_row({tb_role_names[k], x, i64(us_round(x)),
                   o.avg_step_ns > 0 ? round2(100.0 * x / o.avg_step_ns) : 0.0});
  }
  // The average step: the plugin's shape (step_ns, parts) and the CSV's average row's fields
  // under the CSV's names (step, total_ns, one <role>_ns each).
  auto average = tree("average", output::json_shape::object);
  average.add("step", string);
  average.add("total_ns", real);
  for (auto const* k : tb_role_keys) average.add(std::string(k) + "_ns", real);
  average.add("step_ns", real);
  average.add("step_us", integer);
  average.add("parts", nested);
  std::vector<cell> mean = {std::string("average"), o.avg_step_ns};
  for (auto x : o.avg_cost_ns) mean.emplace_back(x);
  mean.insert(mean.end(), {o.avg_step_ns, i64(us_round(o.avg_step_ns)), nest(std::move(parts))});
  average.add_row(std::move(mean));
  auto gpus = tree("gpus");
  gpus.add("device", integer);
  add_all(gpus, real,
          {"utilization", "utilization_percent", "sm_efficiency", "sm_efficiency_percent",
           "occupancy_percent"});
  auto opt = [](std::optional<double> const& d, double scale, bool rounded) {
    return d ? cell(rounded ? round2(*d * scale) : *d) : cell{};
  };
  for (auto const& x : o.gpus)
    gpus.add_row({i64(x.device), x.utilization, round2(x.utilization * 100),
                  opt(x.sm_efficiency, 1, false), opt(x.sm_efficiency, 100, true),
                  opt(x.occupancy_pct, 1, true)});
  auto kernels = tree("kernels");
  kernels.add("name", string);
  add_all(kernels, integer, {"calls", "total_ns"});
  kernels.add("mean_ns", real);
  add_all(kernels, integer, {"max_ns", "min_ns", "mean_us"});
  add_all(kernels, real, {"blocks_per_sm", "occupancy_pct"});  // unrounded, as CSV
  for (auto const& x : o.kernels)
    kernels.add_row({x.name, i64(x.calls), i64(x.total_ns), x.mean_ns, i64(x.max_ns), i64(x.min_ns),
                     i64(us_round(x.mean_ns)), x.blocks_per_sm, x.occupancy_pct});
  return {i64(o.input),
          i64(o.rank),
          o.has_communication,
          nest(std::move(steps)),
          nest(std::move(average)),
          nest(std::move(gpus)),
          nest(std::move(kernels))};
}

}  // namespace

result_table tb_json(std::vector<tb_overview> const& v) {
  auto t = tree("tb");
  add_all(t, integer, {"input", "rank"});
  t.add("has_communication", boolean);
  add_all(t, nested, {"steps", "average", "gpus", "kernels"});
  for (auto const& o : v) t.add_row(tb_json_row(o));
  return t;
}

/// Per input, the plugin's operator rows: its names, durations in integer µs.
result_table tb_operators_json(std::vector<tb_operator_table> const& v) {
  auto t = tree("tb_operators");
  add_all(t, integer, {"input", "rank"});
  t.add("rows", nested);
  for (auto const& o : v) {
    auto rows = tree("rows");
    rows.add("name", string);
    rows.add("calls", integer);
    for (auto const* k : tb_operator_keys) rows.add(k, integer);
    for (auto const* k : tb_operator_ns_keys) rows.add(k, integer, "ns");  // as CSV
    for (auto const& r : o.rows) {
      std::vector<cell> cells = {r.name, i64(r.calls)};
      for (auto x : tb_operator_values(r)) cells.push_back(i64(us_round(static_cast<double>(x))));
      for (auto x : tb_operator_values(r)) cells.push_back(i64(x));
      rows.add_row(std::move(cells));
    }
    t.add_row({i64(o.input), i64(o.rank), nest(std::move(rows))});
  }
  return t;
}

}  // namespace tracesweep::tables
