// SPDX-License-Identifier: Apache-2.0
// What diagnose reads of each device besides the session's activity numbers: its unions (views
// into the session's), and the thread that launched most of its rows.
#include <map>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

std::vector<device_unions> unions_of(activity_result const& activity) {
  std::vector<device_unions> out;
  out.reserve(activity.devices.size());
  for (std::size_t g = 0; g < activity.devices.size(); ++g) {
    auto const id = static_cast<group_id>(g);
    out.push_back({members_of(activity.activity_union, id), members_of(activity.kernel_union, id),
                   members_of(activity.computation_union, id)});
  }
  return out;
}

std::vector<std::optional<host_index::key>> main_threads(trace_model const& model,
                                                         device_rows const& order) {
  std::vector<std::optional<host_index::key>> out(model.devices().size());
  for (std::size_t g = 0; g < out.size(); ++g) {
    std::map<host_index::key, std::size_t> counts;
    // A device's rows mostly come from one thread: runs of it are counted, then added at once.
    std::optional<host_index::key> run;
    std::size_t run_length = 0;
    for (auto const r : order.of(g)) {
      auto const k = launching_thread(model, static_cast<std::int64_t>(r));
      if (k == run) {
        ++run_length;
        continue;
      }
      if (run) counts[*run] += run_length;
      run = k, run_length = 1;
    }
    if (run) counts[*run] += run_length;
    std::size_t best = 0;
    for (auto const& [k, n] : counts)
      if (n > best) best = n, out[g] = k;
  }
  return out;
}

}  // namespace tracesweep::diagnose_detail
