// SPDX-License-Identifier: Apache-2.0
#include "tables/event_links.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <unordered_map>

namespace tracesweep::tables {

namespace {
struct launch_key {
  std::int32_t input;
  std::int64_t correlation;
  friend bool operator==(launch_key const&, launch_key const&) = default;
};
struct launch_key_hash {
  std::size_t operator()(launch_key const& k) const noexcept {
    return std::hash<std::int64_t>{}(k.correlation * 1000003 + k.input);
  }
};
}  // namespace

event_links::event_links(event_table const& t) : _t(t) {
  auto const n = t.size();
  _paddle_input.resize(t.inputs().size());
  for (std::size_t i = 0; i < t.inputs().size(); ++i)
    _paddle_input[i] = t.inputs()[i].format == "paddle-json";
  _ranks.assign(t.rank.begin(), t.rank.end());
  std::sort(_ranks.begin(), _ranks.end());
  _ranks.erase(std::unique(_ranks.begin(), _ranks.end()), _ranks.end());

  std::unordered_map<launch_key, std::int64_t, launch_key_hash> api;
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == event_kind::api_call && t.correlation[i] >= 0)
      api.emplace(launch_key{t.input[i], t.correlation[i]}, static_cast<std::int64_t>(i));
  _launcher.assign(n, -1);
  _kept.assign(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_device_activity(t.kind[i])) continue;
    if (t.correlation[i] >= 0)
      if (auto it = api.find(launch_key{t.input[i], t.correlation[i]}); it != api.end())
        _launcher[i] = it->second;
    if (_launcher[i] < 0 && paddle(i)) _kept[i] = 0;
  }

  // API calls per host thread with the kernel time each launched.
  std::vector<std::int64_t> launched(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == event_kind::kernel && _launcher[i] >= 0)
      launched[static_cast<std::size_t>(_launcher[i])] += t.end_ns[i] - t.start_ns[i];
  std::vector<std::size_t> calls;
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == event_kind::api_call) calls.push_back(i);
  std::stable_sort(calls.begin(), calls.end(),
                   [&](std::size_t a, std::size_t b) { return t.start_ns[a] < t.start_ns[b]; });
  for (auto i : calls) {
    auto& c = _calls[{t.input[i], t.stream[i]}];
    c.start.push_back(t.start_ns[i]);
    c.end.push_back(t.end_ns[i]);
    c.kernel_ns.push_back(launched[i]);
  }
  // The same calls per rank, any thread, with prefix sums of the kernel time they launched.
  _rank_calls.resize(_ranks.size());
  for (auto& rc : _rank_calls) rc.kernel_ns.push_back(0);
  for (auto i : calls) {
    auto& rc = _rank_calls[rank_index(*this, t.rank[i])];
    rc.start.push_back(t.start_ns[i]);
    rc.kernel_ns.push_back(rc.kernel_ns.back() + launched[i]);
  }
}

bool event_links::paddle_rank(std::int32_t r) const {
  for (std::size_t i = 0; i < _t.inputs().size(); ++i)
    if (_paddle_input[i]) {
      auto const& rs = _t.inputs()[i].ranks;
      if (std::find(rs.begin(), rs.end(), r) != rs.end()) return true;
    }
  return false;
}

std::int64_t event_links::kernel_time_inside(std::int32_t input, std::int64_t thread,
                                             std::int64_t start, std::int64_t end) const {
  auto it = _calls.find({input, thread});
  if (it == _calls.end()) return 0;
  auto const& c = it->second;
  auto i = static_cast<std::size_t>(std::lower_bound(c.start.begin(), c.start.end(), start) -
                                    c.start.begin());
  std::int64_t sum = 0;
  for (; i < c.start.size() && c.start[i] <= end; ++i)
    if (c.end[i] <= end) sum += c.kernel_ns[i];
  return sum;
}

std::int64_t event_links::kernel_time_launched_in(std::int32_t rank, std::int64_t start,
                                                  std::int64_t end) const {
  auto const r = rank_index(*this, rank);
  if (r >= _rank_calls.size() || _ranks[r] != rank || end <= start) return 0;
  auto const& rc = _rank_calls[r];
  auto const lo = std::lower_bound(rc.start.begin(), rc.start.end(), start) - rc.start.begin();
  auto const hi = std::lower_bound(rc.start.begin(), rc.start.end(), end) - rc.start.begin();
  return rc.kernel_ns[static_cast<std::size_t>(hi)] - rc.kernel_ns[static_cast<std::size_t>(lo)];
}

std::string event_links::type_label(std::size_t i) const {
  auto const cat = std::string(_t.strings().at(_t.category[i]));
  if (paddle(i)) return cat;
  switch (_t.kind[i]) {  // Kineto: the name made it a step or a stage
    case event_kind::profiler_step:
      return "ProfilerStep";
    case event_kind::data_loader:
      return "DataLoader";
    case event_kind::optimizer:
      return "Optimizer.step";
    default:
      return cat;
  }
}

std::size_t rank_index(event_links const& links, std::int32_t r) {
  auto const& rs = links.ranks();
  return static_cast<std::size_t>(std::lower_bound(rs.begin(), rs.end(), r) - rs.begin());
}

std::vector<denominator> denominators(event_links const& links, backend& be) {
  auto const& t = links.table();
  auto const nr = links.ranks().size();
  std::vector<denominator> d(nr);
  std::vector<std::int64_t> lo(nr, INT64_MAX), hi(nr, INT64_MIN);
  std::vector<std::int64_t> s, e;
  std::vector<group_id> g;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!links.kept(i)) continue;
    auto const r = rank_index(links, t.rank[i]);
    lo[r] = std::min(lo[r], t.start_ns[i]);
    hi[r] = std::max(hi[r], t.end_ns[i]);
    if (t.kind[i] == event_kind::profiler_step) {
      s.push_back(t.start_ns[i]), e.push_back(t.end_ns[i]), g.push_back(static_cast<group_id>(r));
      d[r].from_steps = true;
    }
  }
  auto const busy = busy_per_group(be.union_by_group({s, e, g}), nr);
  for (std::size_t r = 0; r < nr; ++r)
    d[r].total_ns = d[r].from_steps ? busy[r] : (hi[r] > lo[r] ? hi[r] - lo[r] : 0);
  return d;
}

}  // namespace tracesweep::tables
