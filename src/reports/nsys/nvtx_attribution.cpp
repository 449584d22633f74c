// SPDX-License-Identifier: Apache-2.0
#include "reports/nsys/nvtx_attribution.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tracesweep::stats {

namespace {

using thread_key = std::tuple<std::int32_t, std::int32_t, std::int64_t>;  // input, rank, tid

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> nvtx_attributions(trace_model const& model,
                                                                   bool all_gpu_operations) {
  auto const& t = model.table();
  std::map<thread_key, std::vector<std::size_t>> ranges, calls;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_host_range(t, i)) ranges[{t.input_of(i), t.rank[i], t.stream[i]}].push_back(i);
  std::map<std::size_t, std::vector<std::size_t>> kernels_of;  // call → its device rows
  for (std::size_t i = 0; i < t.size(); ++i) {
    bool const wanted =
        all_gpu_operations ? is_device_activity(t.kind[i]) : t.kind[i] == event_kind::kernel;
    if (!wanted || t.device[i] < 0) continue;
    auto const c = model.launcher(i);
    if (c < 0) continue;
    auto const call = static_cast<std::size_t>(c);
    if (kernels_of[call].empty())
      calls[{t.input_of(call), t.rank[call], t.stream[call]}].push_back(call);
    kernels_of[call].push_back(i);
  }
  auto by_start = [&](std::size_t a, std::size_t b) {
    return std::pair(t.start_ns[a], a) < std::pair(t.start_ns[b], b);
  };
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (auto& [thread, list] : calls) {
    auto found = ranges.find(thread);
    if (found == ranges.end()) continue;
    auto& rs = found->second;
    std::sort(rs.begin(), rs.end(), by_start);
    std::sort(list.begin(), list.end(), by_start);
    std::multiset<std::pair<std::int64_t, std::size_t>> open;  // (end, range row)
    std::size_t next = 0;
    for (auto const call : list) {
      for (; next < rs.size() && t.start_ns[rs[next]] <= t.start_ns[call]; ++next)
        open.insert({t.end_ns[rs[next]], rs[next]});
      while (!open.empty() && open.begin()->first < t.start_ns[call]) open.erase(open.begin());
      for (auto it = open.lower_bound({t.end_ns[call], 0}); it != open.end(); ++it)
        for (auto const k : kernels_of[call]) out.emplace_back(it->second, k);
    }
  }
  return out;
}

std::vector<std::int64_t> innermost_nvtx_range(trace_model const& model) {
  auto const& t = model.table();
  std::vector<std::int64_t> out(t.size(), -1);
  for (auto const& [range, kernel] : nvtx_attributions(model)) {
    auto& best = out[kernel];
    auto const inner = [&](std::size_t r) { return std::tuple(t.start_ns[r], -t.end_ns[r], r); };
    if (best < 0 || inner(range) > inner(static_cast<std::size_t>(best)))
      best = static_cast<std::int64_t>(range);
  }
  return out;
}

std::vector<range_nesting> nvtx_range_nesting(event_table const& t) {
  std::vector<range_nesting> out(t.size());
  sweep_ranges_by_thread(
      t, [&](std::size_t i) { return is_host_range(t, i); },
      [&](std::size_t a, open_ranges const& open) {
        auto const first = open.lower_bound({t.end_ns[a], 0});
        out[a].level = static_cast<std::int64_t>(std::distance(first, open.end()));
        for (auto it = first; it != open.end(); ++it)
          if (out[it->second].level == out[a].level - 1) ++out[it->second].children;
      });
  return out;
}

std::string_view range_style_name(event_table const& t, std::size_t range) noexcept {
  return t.subkind[range] == static_cast<std::uint8_t>(range_style::start_end) ? "StartEnd"
                                                                               : "PushPop";
}

}  // namespace tracesweep::stats
