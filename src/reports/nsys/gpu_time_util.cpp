// SPDX-License-Identifier: Apache-2.0
// gpu_time_util: per device, the operations' overlap with each chunk of its span summed in one
// pass over the operations; runs of low chunks become rows.
#include <tracesweep/reports/nsys/gpu_rules.hpp>

#include <algorithm>
#include <tuple>

#include "reports/nsys/gpu_operations.hpp"

namespace tracesweep {

namespace {

/// Σ overlap per chunk of [first, last) cut every `chunk` ns.
std::vector<unsigned __int128> overlap_per_chunk(stats::device_operations const& d,
                                                 std::int64_t chunk, std::size_t count) {
  std::vector<unsigned __int128> sum(count, 0);
  for (std::size_t k = 0; k < d.start.size(); ++k) {
    auto const s = std::max(d.start[k], d.first), e = std::min(d.end[k], d.last);
    if (e <= s) continue;
    for (auto i = static_cast<std::size_t>((s - d.first) / chunk); i < count; ++i) {
      auto const lo = d.first + static_cast<std::int64_t>(i) * chunk;
      if (lo >= e) break;
      auto const hi = std::min(lo + chunk, d.last);
      sum[i] += static_cast<unsigned __int128>(std::min(e, hi) - std::max(s, lo));
    }
  }
  return sum;
}

double percent(unsigned __int128 busy, std::int64_t length) {
  return static_cast<double>(busy) * 100.0 / static_cast<double>(length);
}

void low_runs(stats::device_operations const& d, gpu_time_util_options const& o,
              std::vector<gpu_rule_row>& out) {
  auto const span = d.last - d.first;
  if (span <= 0) return;
  auto const chunk = span / o.chunks + (span % o.chunks != 0 ? 1 : 0);
  auto const count = static_cast<std::size_t>(span / chunk + (span % chunk != 0 ? 1 : 0));
  auto const busy = overlap_per_chunk(d, chunk, count);
  std::int64_t run_start = 0, run_length = 0;
  unsigned __int128 run_busy = 0;
  auto close_run = [&] {
    if (run_length > 0)
      out.push_back(
          {run_length, run_start, d.pid, d.device, d.context, percent(run_busy, run_length)});
    run_length = 0, run_busy = 0;
  };
  for (std::size_t i = 0; i < count; ++i) {
    auto const lo = d.first + static_cast<std::int64_t>(i) * chunk;
    auto const length = std::min(lo + chunk, d.last) - lo;
    if (percent(busy[i], length) >= o.threshold_pct) {
      close_run();
      continue;
    }
    if (run_length == 0) run_start = lo;
    run_length += length, run_busy += busy[i];
  }
  close_run();
}

}  // namespace

std::vector<gpu_rule_table> compute_gpu_time_util(trace_model const& model,
                                                  gpu_time_util_options const& o) {
  auto const& t = model.table();
  auto const ranks = stats::recipe_ranks(t);
  std::vector<gpu_rule_table> out(t.inputs().size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = {"gpu_time_util", t.inputs()[i].path, ranks[i], {}};
  for (auto const& d : stats::gpu_operations(model))
    low_runs(d, o, out[static_cast<std::size_t>(d.input)].rows);
  for (auto& table : out) {
    auto& rows = table.rows;
    std::sort(rows.begin(), rows.end(), [](auto const& a, auto const& b) {
      return std::tuple(a.pid, a.device, a.start_ns) < std::tuple(b.pid, b.device, b.start_ns);
    });
    if (o.rows > 0 && rows.size() > o.rows) rows.resize(o.rows);
  }
  return out;
}

}  // namespace tracesweep
