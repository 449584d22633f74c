// SPDX-License-Identifier: Apache-2.0
// Tiny-kernel bursts: runs of consecutive kernels of one device (in start order), each shorter
// than tiny_kernel_ns and starting at most burst_max_gap_ns after the run's last end, launched
// from one host op: the outermost host range around the launch call that is not a profiler step.
#include <algorithm>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// The outermost non-step range around the call that launched `row` (-1: none known).
std::int64_t launching_op(trace_model const& model, std::size_t row) {
  auto const call = model.launcher(row);
  if (call < 0) return -1;
  auto const& t = model.table();
  std::int64_t op = -1;
  for (auto p = model.parent(static_cast<std::size_t>(call)); p >= 0;
       p = model.parent(static_cast<std::size_t>(p)))
    if (t.kind[static_cast<std::size_t>(p)] != event_kind::profiler_step) op = p;
  return op;
}

struct run {
  std::int64_t op = -1;
  std::int64_t start = 0, end = 0, kernels = 0, kernel_ns = 0;
};

}  // namespace

void find_bursts(trace_model const& model, device_rows const& order, diagnosis& out) {
  auto const& t = model.table();
  auto const& o = out.options;
  std::vector<burst_finding> found;
  for (std::size_t g = 0; g + 1 < order.offsets.size(); ++g) {
    run cur;
    auto close = [&] {
      if (cur.kernels >= static_cast<std::int64_t>(o.burst_min_kernels)) {
        burst_finding b;
        b.where = key_of(model, g);
        b.start_ns = cur.start;
        b.end_ns = cur.end;
        b.kernels = cur.kernels;
        b.kernel_ns = cur.kernel_ns;
        if (cur.op >= 0)
          b.launched_by = std::string(t.strings().at(t.name[static_cast<std::size_t>(cur.op)]));
        found.push_back(std::move(b));
      }
      cur = run{};
    };
    for (auto const r : order.of(g)) {
      if (t.kind[r] != event_kind::kernel) continue;
      std::int64_t const d = t.end_ns[r] - t.start_ns[r];
      if (d >= o.tiny_kernel_ns) {
        close();
        continue;
      }
      auto const op = launching_op(model, r);
      bool const joins =
          cur.kernels > 0 && op == cur.op && t.start_ns[r] - cur.end <= o.burst_max_gap_ns;
      if (!joins) {
        close();
        cur.op = op;
        cur.start = t.start_ns[r];
        cur.end = t.end_ns[r];
      }
      cur.end = std::max(cur.end, t.end_ns[r]);
      ++cur.kernels;
      cur.kernel_ns += d;
    }
    close();
  }
  std::sort(found.begin(), found.end(), [](burst_finding const& a, burst_finding const& b) {
    if (a.kernels != b.kernels) return a.kernels > b.kernels;
    return std::tie(a.where.input, a.where.rank, a.where.device, a.start_ns) <
           std::tie(b.where.input, b.where.rank, b.where.device, b.start_ns);
  });
  out.bursts_total = static_cast<std::int64_t>(found.size());
  if (o.top != 0 && found.size() > o.top) found.resize(o.top);
  out.bursts = std::move(found);
}

}  // namespace tracesweep::diagnose_detail
