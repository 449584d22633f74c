// SPDX-License-Identifier: Apache-2.0
// Job-table writers. Every table is laid out once as a grid of cells (header with units, one
// text / CSV rendering per cell); text aligns the grid, CSV prints it, JSON is written from the
// results directly with every *_ns an integer.
#include <tracesweep/tables/report.hpp>

#include <tracesweep/error.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace tracesweep {

namespace {

std::string jstr(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    auto const u = static_cast<unsigned char>(c);
    if (c == '"')
      o += "\\\"";
    else if (c == '\\')
      o += "\\\\";
    else if (u < 0x20)
      o += fmt::format("\\u{:04x}", u);
    else
      o += c;
  }
  return o + "\"";
}

std::string real(double v) {
  if (!std::isfinite(v)) return "null";
  auto s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// ns → ms text with 3 decimals; ratios as percent with 2 decimals.
std::string ms(double ns) {
  return fmt::format("{:.3f}", ns / 1e6);
}
std::string pct(double r) {
  return fmt::format("{:.2f}", r * 100.0);
}
/// µs rounded half to even, the TensorBoard plugin's integer µs.
std::int64_t us_round(double ns) {
  return static_cast<std::int64_t>(std::nearbyint(ns / 1000.0));
}
/// Python's round(x, 2) as text: the double rounded to 2 decimals, shortest form.
double round2(double x) {
  return std::stod(fmt::format("{:.2f}", x));
}

struct grid {
  std::string title;
  std::vector<std::string> header;
  std::vector<bool> left;  // left-aligned column
  std::vector<std::vector<std::string>> text, csv;
  void row(std::vector<std::string> t, std::vector<std::string> c) {
    text.push_back(std::move(t));
    csv.push_back(std::move(c));
  }
};

void write_text(grid const& g, std::ostream& out) {
  std::vector<std::size_t> w(g.header.size());
  for (std::size_t c = 0; c < w.size(); ++c) {
    w[c] = g.header[c].size();
    for (auto const& r : g.text) w[c] = std::max(w[c], r[c].size());
  }
  std::size_t line = 0;
  for (auto x : w) line += x + 2;
  out << g.title << '\n' << std::string(line > 2 ? line - 2 : 0, '-') << '\n';
  auto emit = [&](std::vector<std::string> const& r) {
    std::string s;
    for (std::size_t c = 0; c < w.size(); ++c) {
      auto const pad = std::string(w[c] - r[c].size(), ' ');
      s += g.left[c] ? r[c] + pad : pad + r[c];
      if (c + 1 < w.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  emit(g.header);
  out << std::string(line > 2 ? line - 2 : 0, '-') << '\n';
  for (auto const& r : g.text) emit(r);
  out << '\n';
}

std::string csv_cell(std::string const& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

// ---- grids -----------------------------------------------------------------------------------

grid overview_grid(std::vector<rank_overview> const& v) {
  grid g{
      "Overview Summary (host rows: CPU time = union over threads; device rows: GPU time = union "
      "over devices and streams; stage rows: outermost events, durations added)",
      {"Rank", "Side", "Event Type", "Calls", "Time (ms)", "Ratio (%)", "Rule", "Denominator (ms)"},
      {false, true, true, false, false, false, true, false},
      {},
      {}};
  for (auto const& r : v)
    for (auto const& x : r.rows)
      g.row({std::to_string(r.rank), x.device ? "GPU" : "CPU", x.type, std::to_string(x.calls),
             ms(static_cast<double>(x.time_ns)), pct(x.ratio), x.rule,
             ms(static_cast<double>(r.total_ns)) + " (" + r.total_from + ")"},
            {std::to_string(r.rank), x.device ? "device" : "host", x.type, std::to_string(x.calls),
             std::to_string(x.time_ns), real(x.ratio), x.rule, std::to_string(r.total_ns)});
  return g;
}
std::vector<std::string> overview_csv_header() {
  return {"rank", "side", "type", "calls", "time_ns", "ratio", "rule", "total_ns"};
}

grid model_grid(std::vector<rank_model_summary> const& v) {
  grid g{
      "Model Summary (CPU: durations of steps and outermost stages; GPU: kernel time launched "
      "inside, "
      "streams summed; CPU ratio over the denominator, GPU ratio over the step row)",
      {"Rank", "Name", "Calls", "CPU Total (ms)", "CPU Avg (ms)", "CPU Max (ms)", "CPU Min (ms)",
       "CPU Ratio (%)", "GPU Total (ms)", "GPU Avg (ms)", "GPU Max (ms)", "GPU Min (ms)",
       "GPU Ratio (%)"},
      {false, true, false, false, false, false, false, false, false, false, false, false, false},
      {},
      {}};
  for (auto const& r : v)
    for (auto const& m : r.items) {
      auto dash = [&](std::string s) { return m.others ? std::string("-") : s; };
      g.row(
          {std::to_string(r.rank),
           m.others || m.name == "ProfileStep" || m.name == "ProfilerStep" ? m.name : "  " + m.name,
           dash(std::to_string(m.calls)), ms(static_cast<double>(m.cpu_total_ns)),
           dash(ms(m.cpu_avg_ns)), dash(ms(static_cast<double>(m.cpu_max_ns))),
           dash(ms(static_cast<double>(m.cpu_min_ns))), pct(m.cpu_ratio),
           ms(static_cast<double>(m.gpu_total_ns)), dash(ms(m.gpu_avg_ns)),
           dash(ms(static_cast<double>(m.gpu_max_ns))), dash(ms(static_cast<double>(m.gpu_min_ns))),
           pct(m.gpu_ratio)},
          {std::to_string(r.rank), m.name, dash(std::to_string(m.calls)),
           std::to_string(m.cpu_total_ns), dash(real(m.cpu_avg_ns)),
           dash(std::to_string(m.cpu_max_ns)), dash(std::to_string(m.cpu_min_ns)),
           real(m.cpu_ratio), std::to_string(m.gpu_total_ns), dash(real(m.gpu_avg_ns)),
           dash(std::to_string(m.gpu_max_ns)), dash(std::to_string(m.gpu_min_ns)),
           real(m.gpu_ratio)});
    }
  return g;
}
std::vector<std::string> model_csv_header() {
  return {"rank",       "name",       "calls",     "cpu_total_ns", "cpu_avg_ns",
          "cpu_max_ns", "cpu_min_ns", "cpu_ratio", "gpu_total_ns", "gpu_avg_ns",
          "gpu_max_ns", "gpu_min_ns", "gpu_ratio"};
}

grid distributed_grid(distributed_summary const& d) {
  grid g{fmt::format(
             "Distributed Summary (communication = |∪ comm|, computation = |∪ compute|, overlap = "
             "|comm ∩ compute|; ratios over the denominator); slowest rank: {}",
             d.slowest_rank),
         {"Rank", "Steps", "Mean Step (ms)", "Denominator (ms)", "Communication (ms)", "Comm (%)",
          "Computation (ms)", "Comp (%)", "Overlap (ms)", "Overlap (%)"},
         {false, false, false, false, false, false, false, false, false, false},
         {},
         {}};
  for (auto const& r : d.ranks) {
    auto const t = static_cast<double>(r.total_ns);
    auto ratio = [&](std::int64_t x) { return t > 0 ? static_cast<double>(x) / t : 0.0; };
    g.row({std::to_string(r.rank), std::to_string(r.steps), ms(r.mean_step_ns), ms(t),
           ms(static_cast<double>(r.communication_ns)), pct(ratio(r.communication_ns)),
           ms(static_cast<double>(r.computation_ns)), pct(ratio(r.computation_ns)),
           ms(static_cast<double>(r.overlap_ns)), pct(ratio(r.overlap_ns))},
          {std::to_string(r.rank), std::to_string(r.steps), real(r.mean_step_ns),
           std::to_string(r.total_ns), std::to_string(r.communication_ns),
           real(ratio(r.communication_ns)), std::to_string(r.computation_ns),
           real(ratio(r.computation_ns)), std::to_string(r.overlap_ns), real(ratio(r.overlap_ns))});
  }
  return g;
}
std::vector<std::string> distributed_csv_header() {
  return {"rank",
          "steps",
          "mean_step_ns",
          "total_ns",
          "communication_ns",
          "communication_ratio",
          "computation_ns",
          "computation_ratio",
          "overlap_ns",
          "overlap_ratio"};
}

grid across_grid(distributed_summary const& d) {
  grid g{"Across ranks",
         {"Metric", "Min (ms)", "Median (ms)", "Max (ms)"},
         {true, false, false, false},
         {},
         {}};
  for (auto const& a : d.across)
    g.row({a.metric, ms(a.min), ms(a.median), ms(a.max)},
          {a.metric, real(a.min), real(a.median), real(a.max)});
  return g;
}

grid kernels_grid(std::vector<rank_kernel_table> const& v) {
  grid g{"Kernel Summary (kernels by full name; ratio over all kernel time of the rank)",
         {"Rank", "Name", "Calls", "Total (ms)", "Avg (ms)", "Max (ms)", "Min (ms)", "Ratio (%)"},
         {false, true, false, false, false, false, false, false},
         {},
         {}};
  for (auto const& r : v)
    for (auto const& k : r.rows)
      g.row({std::to_string(r.rank), k.name, std::to_string(k.calls),
             ms(static_cast<double>(k.total_ns)), ms(k.avg_ns), ms(static_cast<double>(k.max_ns)),
             ms(static_cast<double>(k.min_ns)), pct(k.ratio)},
            {std::to_string(r.rank), k.name, std::to_string(k.calls), std::to_string(k.total_ns),
             real(k.avg_ns), std::to_string(k.max_ns), std::to_string(k.min_ns), real(k.ratio)});
  return g;
}
std::vector<std::string> kernels_csv_header() {
  return {"rank", "name", "calls", "total_ns", "avg_ns", "max_ns", "min_ns", "ratio"};
}

grid tb_grid(std::vector<tb_overview> const& v) {
  std::vector<std::string> h = {"Rank", "Step", "Total (us)"};
  for (auto n : tb_role_names) h.push_back(std::string(n) + " (us)");
  grid g{"TensorBoard plugin overview: step time breakdown (plugin rules; integer us)",
         h,
         std::vector<bool>(h.size(), false),
         {},
         {}};
  for (auto const& o : v) {
    auto add = [&](std::string step, double total, auto const& costs) {
      std::vector<std::string> t = {std::to_string(o.rank), step, std::to_string(us_round(total))};
      std::vector<std::string> c = {std::to_string(o.rank), step, fmt::format("{}", total)};
      for (int k = 0; k < tb_role_count; ++k) {
        auto const x = static_cast<double>(costs[static_cast<std::size_t>(k)]);
        t.push_back(k == static_cast<int>(tb_role::communication) && !o.has_communication
                        ? "-"
                        : fmt::format("{} ({:.2f}%)", us_round(x),
                                      total > 0 ? round2(100.0 * x / total) : 0.0));
        c.push_back(fmt::format("{}", x));
      }
      g.row(std::move(t), std::move(c));
    };
    for (auto const& s : o.steps) add(s.name, static_cast<double>(s.total_ns()), s.cost_ns);
    add("average", o.avg_step_ns, o.avg_cost_ns);
  }
  return g;
}
std::vector<std::string> tb_csv_header() {
  std::vector<std::string> h = {"rank", "step", "total_ns"};
  for (auto n : {"kernel", "memcpy", "memset", "communication", "runtime", "data_loader",
                 "cpu_exec", "other"})
    h.push_back(std::string(n) + "_ns");
  return h;
}

grid tb_gpu_grid(std::vector<tb_overview> const& v) {
  grid g{"GPU summary (over all steps)",
         {"Rank", "GPU", "GPU Utilization (%)", "Est. SM Efficiency (%)",
          "Est. Achieved Occupancy (%)"},
         {false, false, false, false, false},
         {},
         {}};
  for (auto const& o : v)
    for (auto const& x : o.gpus) {
      auto opt = [](std::optional<double> const& d, double scale) {
        return d ? fmt::format("{:.2f}", *d * scale) : std::string("-");
      };
      g.row({std::to_string(o.rank), std::to_string(x.device),
             fmt::format("{:.2f}", x.utilization * 100), opt(x.sm_efficiency, 100),
             opt(x.occupancy_pct, 1)},
            {std::to_string(o.rank), std::to_string(x.device), real(x.utilization),
             x.sm_efficiency ? real(*x.sm_efficiency) : "",
             x.occupancy_pct ? real(*x.occupancy_pct) : ""});
    }
  return g;
}

grid tb_kernel_grid(std::vector<tb_overview> const& v) {
  grid g{"Kernel table (all kernels; duration-weighted means)",
         {"Rank", "Name", "Calls", "Total (us)", "Mean (us)", "Max (us)", "Min (us)",
          "Mean Blocks Per SM", "Mean Est. Achieved Occupancy (%)"},
         {false, true, false, false, false, false, false, false, false},
         {},
         {}};
  for (auto const& o : v)
    for (auto const& k : o.kernels)
      g.row({std::to_string(o.rank), k.name, std::to_string(k.calls),
             std::to_string(us_round(static_cast<double>(k.total_ns))),
             std::to_string(us_round(k.mean_ns)),
             std::to_string(us_round(static_cast<double>(k.max_ns))),
             std::to_string(us_round(static_cast<double>(k.min_ns))),
             fmt::format("{:.2f}", k.blocks_per_sm), fmt::format("{:.2f}", k.occupancy_pct)},
            {std::to_string(o.rank), k.name, std::to_string(k.calls), std::to_string(k.total_ns),
             real(k.mean_ns), std::to_string(k.max_ns), std::to_string(k.min_ns),
             real(k.blocks_per_sm), real(k.occupancy_pct)});
  return g;
}
std::vector<std::string> tb_kernels_csv_header() {
  return {"rank",   "name",   "calls",         "total_ns",     "mean_ns",
          "max_ns", "min_ns", "blocks_per_sm", "occupancy_pct"};
}

// ---- JSON ------------------------------------------------------------------------------------

void json_tb(std::vector<tb_overview> const& v, std::ostream& out) {
  out << "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto const& o = v[i];
    out << (i ? "," : "") << "\n  {\"input\": " << o.input << ", \"rank\": " << o.rank
        << ", \"has_communication\": " << (o.has_communication ? "true" : "false")
        << ", \"steps\": [";
    for (std::size_t s = 0; s < o.steps.size(); ++s) {
      auto const& st = o.steps[s];
      out << (s ? ", " : "") << "{\"step\": " << jstr(st.name) << ", \"start_ns\": " << st.start_ns
          << ", \"end_ns\": " << st.end_ns << ", \"total_ns\": " << st.total_ns();
      for (int k = 0; k < tb_role_count; ++k)
        out << ", " << jstr(std::string(tb_role_names[static_cast<std::size_t>(k)]) + "_ns") << ": "
            << st.cost_ns[static_cast<std::size_t>(k)];
      out << "}";
    }
    // The plugin's "Average Step Time": value = round(µs), extra = round(100·part/total, 2).
    out << "],\n   \"average\": {\"step_ns\": " << real(o.avg_step_ns)
        << ", \"step_us\": " << us_round(o.avg_step_ns) << ", \"parts\": [";
    for (int k = 0; k < tb_role_count; ++k) {
      auto const x = o.avg_cost_ns[static_cast<std::size_t>(k)];
      out << (k ? ", " : "") << "{\"name\": " << jstr(tb_role_names[static_cast<std::size_t>(k)])
          << ", \"ns\": " << real(x) << ", \"us\": " << us_round(x)
          << ", \"percent\": " << real(o.avg_step_ns > 0 ? round2(100.0 * x / o.avg_step_ns) : 0)
          << "}";
    }
    out << "]},\n   \"gpus\": [";
    for (std::size_t g = 0; g < o.gpus.size(); ++g) {
      auto const& x = o.gpus[g];
      out << (g ? ", " : "") << "{\"device\": " << x.device
          << ", \"utilization\": " << real(x.utilization)
          << ", \"utilization_percent\": " << real(round2(x.utilization * 100))
          << ", \"sm_efficiency\": " << (x.sm_efficiency ? real(*x.sm_efficiency) : "null")
          << ", \"sm_efficiency_percent\": "
          << (x.sm_efficiency ? real(round2(*x.sm_efficiency * 100)) : "null")
          << ", \"occupancy_percent\": "
          << (x.occupancy_pct ? real(round2(*x.occupancy_pct)) : "null") << "}";
    }
    out << "],\n   \"kernels\": [";
    for (std::size_t k = 0; k < o.kernels.size(); ++k) {
      auto const& x = o.kernels[k];
      out << (k ? "," : "") << "\n    {\"name\": " << jstr(x.name) << ", \"calls\": " << x.calls
          << ", \"total_ns\": " << x.total_ns << ", \"mean_ns\": " << real(x.mean_ns)
          << ", \"max_ns\": " << x.max_ns << ", \"min_ns\": " << x.min_ns
          << ", \"mean_us\": " << us_round(x.mean_ns)
          << ", \"blocks_per_sm\": " << real(round2(x.blocks_per_sm))
          << ", \"occupancy_percent\": " << real(round2(x.occupancy_pct)) << "}";
    }
    out << "]}";
  }
  out << "\n]";
}

void write_json(job_tables const& t, std::ostream& out) {
  out << "{";
  bool first = true;
  auto key = [&](char const* k) {
    out << (first ? "\n" : ",\n") << "\"" << k << "\": ";
    first = false;
  };
  if (t.has_overview) {
    key("overview");
    out << "[";
    for (std::size_t i = 0; i < t.overview.size(); ++i) {
      auto const& r = t.overview[i];
      out << (i ? "," : "") << "\n  {\"rank\": " << r.rank << ", \"total_ns\": " << r.total_ns
          << ", \"total_from\": " << jstr(r.total_from) << ", \"rows\": [";
      for (std::size_t j = 0; j < r.rows.size(); ++j) {
        auto const& x = r.rows[j];
        out << (j ? "," : "") << "\n    {\"type\": " << jstr(x.type) << ", \"side\": \""
            << (x.device ? "device" : "host") << "\", \"calls\": " << x.calls
            << ", \"time_ns\": " << x.time_ns << ", \"ratio\": " << real(x.ratio)
            << ", \"rule\": " << jstr(x.rule) << "}";
      }
      out << "]}";
    }
    out << "\n]";
  }
  if (t.has_model) {
    key("model");
    out << "[";
    for (std::size_t i = 0; i < t.model.size(); ++i) {
      auto const& r = t.model[i];
      out << (i ? "," : "") << "\n  {\"rank\": " << r.rank << ", \"total_ns\": " << r.total_ns
          << ", \"items\": [";
      for (std::size_t j = 0; j < r.items.size(); ++j) {
        auto const& m = r.items[j];
        out << (j ? "," : "") << "\n    {\"name\": " << jstr(m.name);
        if (!m.others)
          out << ", \"calls\": " << m.calls << ", \"cpu_avg_ns\": " << real(m.cpu_avg_ns)
              << ", \"cpu_max_ns\": " << m.cpu_max_ns << ", \"cpu_min_ns\": " << m.cpu_min_ns
              << ", \"gpu_avg_ns\": " << real(m.gpu_avg_ns) << ", \"gpu_max_ns\": " << m.gpu_max_ns
              << ", \"gpu_min_ns\": " << m.gpu_min_ns;
        out << ", \"cpu_total_ns\": " << m.cpu_total_ns << ", \"cpu_ratio\": " << real(m.cpu_ratio)
            << ", \"gpu_total_ns\": " << m.gpu_total_ns << ", \"gpu_ratio\": " << real(m.gpu_ratio)
            << "}";
      }
      out << "]}";
    }
    out << "\n]";
  }
  if (t.has_distributed) {
    key("distributed");
    auto const& d = t.distributed;
    out << "{\"slowest_rank\": " << d.slowest_rank << ", \"ranks\": [";
    for (std::size_t i = 0; i < d.ranks.size(); ++i) {
      auto const& r = d.ranks[i];
      out << (i ? "," : "") << "\n  {\"rank\": " << r.rank << ", \"steps\": " << r.steps
          << ", \"mean_step_ns\": " << real(r.mean_step_ns) << ", \"total_ns\": " << r.total_ns
          << ", \"communication_ns\": " << r.communication_ns
          << ", \"computation_ns\": " << r.computation_ns << ", \"overlap_ns\": " << r.overlap_ns
          << "}";
    }
    out << "],\n \"across_ranks\": [";
    for (std::size_t i = 0; i < d.across.size(); ++i) {
      auto const& a = d.across[i];
      out << (i ? ", " : "") << "{\"metric\": " << jstr(a.metric) << ", \"min_ns\": " << real(a.min)
          << ", \"median_ns\": " << real(a.median) << ", \"max_ns\": " << real(a.max) << "}";
    }
    out << "]}";
  }
  if (t.has_kernels) {
    key("kernels");
    out << "[";
    for (std::size_t i = 0; i < t.kernels.size(); ++i) {
      auto const& r = t.kernels[i];
      out << (i ? "," : "") << "\n  {\"rank\": " << r.rank << ", \"rows\": [";
      for (std::size_t j = 0; j < r.rows.size(); ++j) {
        auto const& k = r.rows[j];
        out << (j ? "," : "") << "\n    {\"name\": " << jstr(k.name) << ", \"calls\": " << k.calls
            << ", \"total_ns\": " << k.total_ns << ", \"avg_ns\": " << real(k.avg_ns)
            << ", \"max_ns\": " << k.max_ns << ", \"min_ns\": " << k.min_ns
            << ", \"ratio\": " << real(k.ratio) << "}";
      }
      out << "]}";
    }
    out << "\n]";
  }
  if (t.has_tb) {
    key("tb");
    json_tb(t.tb, out);
  }
  out << "\n}\n";
}

}  // namespace

void write_job_tables(job_tables const& t, output_format format, std::string const& table,
                      std::ostream& out) {
  if (format == output_format::json) return write_json(t, out);
  if (format == output_format::csv) {
    grid g;
    std::vector<std::string> h;
    if (table == "overview" && t.has_overview)
      g = overview_grid(t.overview), h = overview_csv_header();
    else if (table == "model" && t.has_model)
      g = model_grid(t.model), h = model_csv_header();
    else if (table == "distributed" && t.has_distributed)
      g = distributed_grid(t.distributed), h = distributed_csv_header();
    else if (table == "kernels" && t.has_kernels)
      g = kernels_grid(t.kernels), h = kernels_csv_header();
    else if (table == "tb" && t.has_tb)
      g = tb_grid(t.tb), h = tb_csv_header();
    else if (table == "tb_kernels" && t.has_tb)
      g = tb_kernel_grid(t.tb), h = tb_kernels_csv_header();
    else
      throw usage_error(
          "--format csv needs --table overview|model|distributed|kernels (or tb|tb_kernels with "
          "--compat tb)");
    for (std::size_t c = 0; c < h.size(); ++c) out << (c ? "," : "") << h[c];
    out << '\n';
    for (auto const& r : g.csv) {
      for (std::size_t c = 0; c < r.size(); ++c) out << (c ? "," : "") << csv_cell(r[c]);
      out << '\n';
    }
    return;
  }
  if (t.has_tb) {
    write_text(tb_grid(t.tb), out);
    write_text(tb_gpu_grid(t.tb), out);
    write_text(tb_kernel_grid(t.tb), out);
  }
  if (t.has_overview) write_text(overview_grid(t.overview), out);
  if (t.has_model) write_text(model_grid(t.model), out);
  if (t.has_distributed) {
    write_text(distributed_grid(t.distributed), out);
    write_text(across_grid(t.distributed), out);
  }
  if (t.has_kernels) write_text(kernels_grid(t.kernels), out);
}

}  // namespace tracesweep
