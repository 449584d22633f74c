// SPDX-License-Identifier: Apache-2.0
// Tiny-kernel bursts: runs of consecutive kernels of one device (in start order), each shorter
// than tiny_kernel_ns and starting at most burst_max_gap_ns after the run's last end, launched
// from one host op: the outermost host range around the launch call that is not a step. Runs
// are found first without the ops; only runs long enough are split where the op changes.
#include <algorithm>
#include <tracesweep/exact_stats.hpp>
#include <tuple>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// Consecutive tiny kernels of one device, by start.
struct candidate {
  std::size_t device = 0;
  std::vector<std::size_t> rows;
};

std::vector<candidate> tiny_runs(trace_model const& model, device_rows const& order,
                                 diagnose_options const& o) {
  auto const& t = model.table();
  std::vector<candidate> out;
  for (std::size_t g = 0; g + 1 < order.offsets.size(); ++g) {
    candidate cur{g, {}};
    std::int64_t end = 0;
    auto close = [&] {
      if (cur.rows.size() >= o.burst_min_kernels) out.push_back(std::move(cur));
      cur = candidate{g, {}};
    };
    for (auto const r : order.of(g)) {
      if (t.kind[r] != event_kind::kernel) continue;
      if (t.end_ns[r] - t.start_ns[r] >= o.tiny_kernel_ns) {
        close();
        continue;
      }
      if (!cur.rows.empty() && t.start_ns[r] - end > o.burst_max_gap_ns) close();
      end = cur.rows.empty() ? t.end_ns[r] : std::max(end, t.end_ns[r]);
      cur.rows.push_back(r);
    }
    close();
  }
  return out;
}

}  // namespace

void find_bursts(trace_model const& model, device_rows const& order,
                 host_classifier const& classifier, diagnosis& out) {
  auto const& t = model.table();
  auto const& o = out.options;
  auto const runs = tiny_runs(model, order, o);
  std::vector<host_index::query> calls;
  for (auto const& run : runs)
    for (auto const r : run.rows)
      if (auto const c = model.launcher(r); c >= 0) {
        auto const call = static_cast<std::size_t>(c);
        calls.push_back({{t.input_of(call), t.stream[call]}, t.start_ns[call], t.end_ns[call] + 1});
      }
  host_index const index(model, classifier, std::move(calls));
  auto op_of = [&](std::size_t r) -> std::int64_t {
    auto const c = model.launcher(r);
    return c < 0 ? -1 : enclosing_op(model, index, static_cast<std::size_t>(c), true);
  };

  std::vector<burst_finding> found;
  for (auto const& run : runs) {
    // Split where the launching op changes; keep the pieces long enough.
    std::size_t first = 0;
    std::int64_t op = op_of(run.rows[0]);
    for (std::size_t k = 1; k <= run.rows.size(); ++k) {
      std::int64_t const next = k < run.rows.size() ? op_of(run.rows[k]) : -2;
      if (next == op) continue;
      if (k - first >= o.burst_min_kernels) {
        burst_finding b;
        b.where = key_of(model, run.device);
        b.start_ns = t.start_ns[run.rows[first]];
        for (std::size_t j = first; j < k; ++j) {
          b.end_ns = std::max(b.end_ns, t.end_ns[run.rows[j]]);
          b.kernel_ns = checked_add(b.kernel_ns, t.end_ns[run.rows[j]] - t.start_ns[run.rows[j]],
                                    "the kernel time of a burst");
        }
        b.kernels = static_cast<std::int64_t>(k - first);
        if (op >= 0)
          b.launched_by = std::string(t.strings().at(t.name[static_cast<std::size_t>(op)]));
        found.push_back(std::move(b));
      }
      first = k;
      op = next;
    }
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
