// SPDX-License-Identifier: Apache-2.0
#include "reports/paddle/summary_tables.hpp"

#include "reports/result_columns.hpp"

namespace tracesweep::tables {

using namespace result_columns;

namespace {

cell opt(std::optional<double> const& v) {
  return v ? cell(*v) : cell{};
}

}  // namespace

result_table device_flat(std::vector<rank_device_summary> const& v) {
  auto t = ranked("device",
                  "Device Summary (GPU: |∪ kernels| over the denominator; CPU: as the profiler "
                  "recorded it, the process's over all cores)",
                  text_views);
  t.add("device", string, {}, "Device");
  add_ratio(t, "utilization", "Utilization (%)");
  add_time(t, "busy_ns", integer, "Busy (ms)").flat_null = "";
  add_text_and_flat(t, "total_ns", integer, "Denominator (ms)");
  for (auto const& r : v) {
    auto const total_text = ms(r.total_ns) + " (" + r.total_from + ")";
    if (r.process_cpu)
      t.add_row({i64(r.rank), "CPU(Process)", *r.process_cpu, cell{}, total_text, i64(r.total_ns)});
    if (r.system_cpu)
      t.add_row({i64(r.rank), "CPU(System)", *r.system_cpu, cell{}, total_text, i64(r.total_ns)});
    for (auto const& g : r.gpus)
      t.add_row({i64(r.rank), "GPU" + std::to_string(g.device), g.utilization, i64(g.kernel_ns),
                 total_text, i64(r.total_ns)});
  }
  return t;
}

result_table device_csv(std::vector<rank_device_summary> const& v) {
  // JSON's fields, one row per GPU (a rank without one: a row of its own, device empty).
  auto t = grid("device", "Device Summary", output::flat);
  add_all(t, integer, {"rank", "total_ns"});
  t.add("total_from", string);
  add_all(t, real, {"process_cpu_utilization", "system_cpu_utilization"});
  add_all(t, integer, {"device", "kernel_ns"});
  t.add("utilization", real);
  for (auto const& r : v) {
    std::vector<cell> const common{i64(r.rank), i64(r.total_ns), r.total_from, opt(r.process_cpu),
                                   opt(r.system_cpu)};
    if (r.gpus.empty()) {
      auto cells = common;
      cells.insert(cells.end(), {cell{}, cell{}, cell{}});
      t.add_row(std::move(cells));
    }
    for (auto const& g : r.gpus) {
      auto cells = common;
      cells.insert(cells.end(), {i64(g.device), i64(g.kernel_ns), g.utilization});
      t.add_row(std::move(cells));
    }
  }
  return t;
}

result_table device_json(std::vector<rank_device_summary> const& v) {
  auto t = tree("device");
  add_all(t, integer, {"rank", "total_ns"});
  t.add("total_from", string);
  add_all(t, real, {"process_cpu_utilization", "system_cpu_utilization"});
  t.add("gpus", nested);
  for (auto const& r : v) {
    auto gpus = tree("gpus");
    add_all(gpus, integer, {"device", "kernel_ns"});
    gpus.add("utilization", real);
    for (auto const& g : r.gpus) gpus.add_row({i64(g.device), i64(g.kernel_ns), g.utilization});
    t.add_row({i64(r.rank), i64(r.total_ns), r.total_from, opt(r.process_cpu), opt(r.system_cpu),
               nest(std::move(gpus))});
  }
  return t;
}

result_table user_ranges_flat(std::string name, std::string title,
                              std::vector<rank_user_ranges> const& v) {
  auto t = ranked(std::move(name), std::move(title));
  t.add("name", string, {}, "Name");
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
    for (auto const& m : r.items)
      t.add_row({i64(r.rank), m.name, i64(m.calls), i64(m.cpu_total_ns), m.cpu_avg_ns,
                 i64(m.cpu_max_ns), i64(m.cpu_min_ns), m.cpu_ratio, i64(m.gpu_total_ns),
                 m.gpu_avg_ns, i64(m.gpu_max_ns), i64(m.gpu_min_ns), m.gpu_ratio});
  return t;
}

result_table user_ranges_json(std::string name, std::vector<rank_user_ranges> const& v) {
  auto t = tree(std::move(name));
  add_all(t, integer, {"rank", "total_ns", "step_gpu_ns"});
  t.add("items", nested);
  for (auto const& r : v) {
    auto items = tree("items");
    items.add("name", string);
    add_all(items, integer, {"calls", "cpu_total_ns"});
    items.add("cpu_avg_ns", real);
    add_all(items, integer, {"cpu_max_ns", "cpu_min_ns"});
    items.add("cpu_ratio", real);
    items.add("gpu_total_ns", integer);
    items.add("gpu_avg_ns", real);
    add_all(items, integer, {"gpu_max_ns", "gpu_min_ns"});
    items.add("gpu_ratio", real);
    for (auto const& m : r.items)
      items.add_row({m.name, i64(m.calls), i64(m.cpu_total_ns), m.cpu_avg_ns, i64(m.cpu_max_ns),
                     i64(m.cpu_min_ns), m.cpu_ratio, i64(m.gpu_total_ns), m.gpu_avg_ns,
                     i64(m.gpu_max_ns), i64(m.gpu_min_ns), m.gpu_ratio});
    t.add_row({i64(r.rank), i64(r.total_ns), i64(r.step_gpu_ns), nest(std::move(items))});
  }
  return t;
}

result_table perf_flat(std::vector<rank_perf> const& v) {
  auto t = ranked("perf",
                  "Perf Summary (batch_cost: step time; reader_cost: data loading in the step; "
                  "ips: steps/s; every step counted)",
                  output::text | output::html);
  t.add("steps", integer, {}, "Steps");
  t.add("item", string, {}, "Item");
  auto add_value = [&](std::string name, std::string label) {
    auto& c = t.add(std::move(name), real, "", std::move(label));
    c.decimals = 5;
  };
  add_value("avg", "Avg");
  add_value("max", "Max");
  add_value("min", "Min");
  t.add("unit", string, {}, "Unit");
  add_ratio(t, "reader_ratio", "Reader Ratio (%)");
  for (auto const& p : v) {
    if (p.steps == 0) continue;
    auto const seconds = [](double ns) { return ns / 1e9; };
    auto const cost = [&](std::string item, cost_summary const& c) {
      t.add_row({i64(p.rank), i64(p.steps), std::move(item), seconds(c.avg_ns),
                 seconds(double(c.max_ns)), seconds(double(c.min_ns)), "s", p.reader_ratio});
    };
    if (p.has_reader) cost("reader_cost", p.reader_cost);
    cost("batch_cost", p.batch_cost);
    t.add_row({i64(p.rank), i64(p.steps), "ips", p.ips_avg, p.ips_max, p.ips_min, "steps/s",
               p.reader_ratio});
  }
  return t;
}

result_table perf_rows(std::vector<rank_perf> const& v) {
  // CSV and JSON: the text's rows with times in ns, as every other table writes them.
  auto t = grid("perf", "Perf Summary", output::flat | output::json);
  add_all(t, integer, {"rank", "steps"});
  t.add("item", string);
  add_all(t, real, {"avg", "max", "min"});
  t.add("unit", string);
  t.add("reader_ratio", real);
  for (auto const& p : v) {
    if (p.steps == 0) continue;
    auto const cost = [&](std::string item, cost_summary const& c) {
      t.add_row({i64(p.rank), i64(p.steps), std::move(item), c.avg_ns, double(c.max_ns),
                 double(c.min_ns), "ns", p.reader_ratio});
    };
    if (p.has_reader) cost("reader_cost", p.reader_cost);
    cost("batch_cost", p.batch_cost);
    t.add_row({i64(p.rank), i64(p.steps), "ips", p.ips_avg, p.ips_max, p.ips_min, "steps/s",
               p.reader_ratio});
  }
  return t;
}

}  // namespace tracesweep::tables
