// SPDX-License-Identifier: Apache-2.0
// Launch links: each device row's launching API call by (input, correlation), Paddle's rule that
// unlaunched device rows are dropped, and the kernel time the calls of a thread / a rank launched.
#include <algorithm>
#include <bit>
#include <cstdint>

#include <tracesweep/stats.hpp>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// The first api_call row of each (input, rank, correlation) in one open-addressing table
/// (linear probing, at most half full): one allocation for every call, and no table sized by the
/// inputs × ranks of a job. Correlation ids are unique within one process (CUPTI's, and Kineto's
/// per rank); an nsys export of several processes repeats them, so a link never crosses ranks.
class call_index {
 public:
  explicit call_index(event_table const& t) : _t(t) {
    std::size_t calls = 0;
    for (std::size_t i = 0; i < t.size(); ++i) calls += is_call(i) ? 1 : 0;
    _slots.resize(std::bit_ceil(std::max<std::size_t>(16, 2 * calls)));
    _mask = _slots.size() - 1;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!is_call(i)) continue;
      auto& s = _slots[probe(key_of(i))];
      if (s.row < 0) s = {key_of(i), static_cast<std::int64_t>(i)};  // the first call wins
    }
  }

  /// The call row with device row `i`'s (input, rank, correlation), or -1.
  [[nodiscard]] std::int64_t find(std::size_t i) const {
    if (_t.correlation_of(i) < 0) return -1;
    return _slots[probe(key_of(i))].row;
  }

 private:
  struct key {
    std::int64_t correlation = 0;
    std::int32_t input = 0;
    std::int32_t rank = 0;
    friend bool operator==(key const&, key const&) = default;
  };
  struct slot {
    key k;
    std::int64_t row = -1;  ///< -1: empty
  };

  [[nodiscard]] bool is_call(std::size_t i) const {
    return _t.kind[i] == event_kind::api_call && _t.correlation_of(i) >= 0;
  }
  [[nodiscard]] key key_of(std::size_t i) const {
    return {_t.correlation_of(i), _t.input_of(i), _t.rank[i]};
  }
  /// The slot holding `k`, or the empty one where it would go.
  [[nodiscard]] std::size_t probe(key const& k) const {
    // A 64-bit mix (splitmix64's finaliser) of the three fields, in unsigned arithmetic.
    std::uint64_t h = static_cast<std::uint64_t>(k.correlation) * 0x9e3779b97f4a7c15u ^
                      (std::uint64_t{static_cast<std::uint32_t>(k.input)} << 32 |
                       static_cast<std::uint32_t>(k.rank));
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    h ^= h >> 31;
    for (std::size_t at = h & _mask;; at = (at + 1) & _mask)
      if (_slots[at].row < 0 || _slots[at].k == k) return at;
  }

  event_table const& _t;
  std::vector<slot> _slots;
  std::size_t _mask = 0;
};

}  // namespace

trace_model::links_part::links_part(trace_model const& model) {
  auto const& t = model.table();
  auto const n = t.size();
  call_index const calls(t);
  launcher.assign(n, -1);
  kept.assign(n, 1);
  launches.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_device_activity(t.kind[i])) continue;
    launcher[i] = calls.find(i);
    if (launcher[i] >= 0) launches[static_cast<std::size_t>(launcher[i])] = 1;
    if (launcher[i] < 0 && model.row_producer(i) == producer::paddle) kept[i] = 0;
  }
}

trace_model::call_times_part::call_times_part(trace_model const& model) {
  auto const& t = model.table();
  auto const n = t.size();
  auto const& launcher = model.links().launcher;
  // API calls per host thread with the kernel time each launched.
  std::vector<std::int64_t> launched(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == event_kind::kernel && launcher[i] >= 0)
      launched[static_cast<std::size_t>(launcher[i])] =
          checked_add(launched[static_cast<std::size_t>(launcher[i])], t.end_ns[i] - t.start_ns[i],
                      "the kernel time one call launched");
  std::vector<std::size_t> api_rows;
  for (std::size_t i = 0; i < n; ++i)
    if (t.kind[i] == event_kind::api_call) {
      api_rows.push_back(i);
      if (launched[i] != 0) launched_by_call.emplace_back(i, launched[i]);
    }
  std::stable_sort(api_rows.begin(), api_rows.end(),
                   [&](std::size_t a, std::size_t b) { return t.start_ns[a] < t.start_ns[b]; });
  by_rank.resize(model.ranks().size());
  for (auto i : api_rows) {
    auto& c = calls[{t.input_of(i), t.stream[i]}];
    c.start.push_back(t.start_ns[i]);
    c.end.push_back(t.end_ns[i]);
    c.kernel_ns.push_back(launched[i]);
    auto& rc = by_rank[model.rank_index(t.rank[i])];
    rc.start.push_back(t.start_ns[i]);
    rc.kernel_ns.push_back(
        checked_add(rc.kernel_ns.back(), launched[i], "the kernel time launched by a rank"));
  }
}

std::int64_t trace_model::launcher(std::size_t row) const {
  return links().launcher[row];
}

bool trace_model::launches_device_work(std::size_t row) const {
  return links().launches[row] != 0;
}

bool trace_model::kept(std::size_t row) const {
  return links().kept[row] != 0;
}

std::int64_t trace_model::kernel_time_launched_by(std::size_t call) const {
  auto const& v = call_times().launched_by_call;
  auto const it =
      std::lower_bound(v.begin(), v.end(), call,
                       [](auto const& entry, std::size_t row) { return entry.first < row; });
  return it != v.end() && it->first == call ? it->second : 0;
}

std::int64_t trace_model::kernel_time_inside(std::int32_t input, std::int64_t thread,
                                             std::int64_t start, std::int64_t end) const {
  auto const& l = call_times();
  auto it = l.calls.find({input, thread});
  if (it == l.calls.end()) return 0;
  auto const& c = it->second;
  auto i = static_cast<std::size_t>(std::lower_bound(c.start.begin(), c.start.end(), start) -
                                    c.start.begin());
  std::int64_t sum = 0;
  for (; i < c.start.size() && c.start[i] <= end; ++i)
    if (c.end[i] <= end)
      sum = checked_add(sum, c.kernel_ns[i], "the kernel time launched in a range");
  return sum;
}

std::int64_t trace_model::kernel_time_launched_in(std::int32_t rank, std::int64_t start,
                                                  std::int64_t end) const {
  auto const r = rank_index(rank);
  if (r >= _ranks.size() || end <= start) return 0;
  auto const& rc = call_times().by_rank[r];
  auto const lo = std::lower_bound(rc.start.begin(), rc.start.end(), start) - rc.start.begin();
  auto const hi = std::lower_bound(rc.start.begin(), rc.start.end(), end) - rc.start.begin();
  return rc.kernel_ns[static_cast<std::size_t>(hi)] - rc.kernel_ns[static_cast<std::size_t>(lo)];
}

}  // namespace tracesweep
