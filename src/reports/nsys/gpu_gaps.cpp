// SPDX-License-Identifier: Apache-2.0
// gpu_gaps: per device, starts and ends each sorted; the k-th end and the (k+1)-th start bound
// a hole when the start is later (no operation runs between them).
#include <tracesweep/reports/nsys/gpu_rules.hpp>

#include <algorithm>
#include <tuple>

#include "reports/nsys/gpu_operations.hpp"

namespace tracesweep {

namespace {

void gaps_of(stats::device_operations d, std::int64_t min_gap, std::vector<gpu_rule_row>& out) {
  std::sort(d.start.begin(), d.start.end());
  std::sort(d.end.begin(), d.end.end());
  for (std::size_t k = 0; k + 1 < d.start.size(); ++k) {
    auto const hole = d.start[k + 1] - d.end[k];
    if (hole > 0 && hole > min_gap)
      out.push_back({hole, d.end[k], d.pid, d.device, d.context, 0.0});
  }
}

}  // namespace

std::vector<gpu_rule_table> compute_gpu_gaps(trace_model const& model, gpu_gaps_options const& o) {
  auto const& t = model.table();
  auto const ranks = stats::recipe_ranks(t);
  std::vector<gpu_rule_table> out(t.inputs().size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = {"gpu_gaps", t.inputs()[i].path, ranks[i], {}};
  for (auto& d : stats::gpu_operations(model)) {
    auto const input = static_cast<std::size_t>(d.input);
    gaps_of(std::move(d), o.min_gap_ns, out[input].rows);
  }
  for (auto& table : out) {
    auto& rows = table.rows;
    std::sort(rows.begin(), rows.end(), [](auto const& a, auto const& b) {
      return std::tuple(-a.duration_ns, a.start_ns, a.pid, a.device) <
             std::tuple(-b.duration_ns, b.start_ns, b.pid, b.device);
    });
    if (o.rows > 0 && rows.size() > o.rows) rows.resize(o.rows);
  }
  return out;
}

}  // namespace tracesweep
