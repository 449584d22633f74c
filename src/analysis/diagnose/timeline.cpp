// SPDX-License-Identifier: Apache-2.0
// Utilization over time: each device's window cut into timeline_bins equal bins, the busy share
// of each from the device's activity union.
#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

void build_timeline(trace_model const& model, std::span<device_unions const> unions,
                    activity_result const& activity, diagnosis& out) {
  auto const bins = static_cast<std::int64_t>(out.options.timeline_bins);
  if (bins <= 0) return;
  for (std::size_t g = 0; g < unions.size(); ++g) {
    auto const& a = activity.devices[g];
    std::int64_t const window = a.window_end - a.window_start;
    if (window <= 0) continue;
    auto const n = std::min<std::int64_t>(bins, window);
    for (std::int64_t b = 0; b < n; ++b) {
      // Bin edges by exact integer division, so the bins tile the window.
      auto const edge = [&](std::int64_t k) {
        return a.window_start + static_cast<std::int64_t>(static_cast<int128>(window) * k / n);
      };
      timeline_bin bin;
      bin.where = key_of(model, g);
      bin.start_ns = edge(b);
      bin.end_ns = edge(b + 1);
      bin.busy_share = static_cast<double>(unions[g].busy.covered(bin.start_ns, bin.end_ns)) /
                       static_cast<double>(bin.end_ns - bin.start_ns);
      out.timeline.push_back(bin);
    }
  }
}

}  // namespace tracesweep::diagnose_detail
