// SPDX-License-Identifier: Apache-2.0
#include "reports/paddle/launched_device_time.hpp"

#include <algorithm>

#include <tracesweep/exact_stats.hpp>

namespace tracesweep::tables {

launched_device_time::launched_device_time(trace_model const& model) : _model(model) {
  auto const& t = model.table();
  std::map<std::int64_t, std::int64_t> device_ns;  // launching call row → device time
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_device_activity(t.kind[i]) || !model.kept(i)) continue;
    auto const call = model.launcher(i);
    if (call < 0) continue;
    device_ns[call] = checked_add(device_ns[call], t.end_ns[i] - t.start_ns[i],
                                  "the device time launched by a runtime call");
  }
  for (auto const& [row, ns] : device_ns) {
    auto const r = static_cast<std::size_t>(row);
    call const c{t.start_ns[r], t.end_ns[r], ns};
    _by_thread[{t.input_of(r), t.stream[r]}].push_back(c);
    _by_rank[t.rank[r]].push_back(c);
  }
  auto const by_start = [](call const& a, call const& b) { return a.start < b.start; };
  for (auto& [key, calls] : _by_thread) std::sort(calls.begin(), calls.end(), by_start);
  for (auto& [key, calls] : _by_rank) std::sort(calls.begin(), calls.end(), by_start);
}

std::int64_t launched_device_time::inside(std::size_t row) const {
  auto const& t = _model.table();
  auto const start = t.start_ns[row], end = t.end_ns[row];
  bool const own_thread = _model.row_producer(row) == producer::paddle;
  std::vector<call> const* calls = nullptr;
  if (own_thread) {
    auto const it = _by_thread.find({t.input_of(row), t.stream[row]});
    if (it != _by_thread.end()) calls = &it->second;
  } else {
    auto const it = _by_rank.find(t.rank[row]);
    if (it != _by_rank.end()) calls = &it->second;
  }
  if (!calls) return 0;
  std::int64_t total = 0;
  auto it = std::lower_bound(calls->begin(), calls->end(), start,
                             [](call const& c, std::int64_t s) { return c.start < s; });
  for (; it != calls->end() && (own_thread ? it->start <= end : it->start < end); ++it)
    if (!own_thread || it->end <= end)
      total = checked_add(total, it->device_ns, "the device time launched inside a range");
  return total;
}

}  // namespace tracesweep::tables
