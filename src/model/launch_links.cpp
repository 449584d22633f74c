// SPDX-License-Identifier: Apache-2.0
// Launch links: each device row's launching API call by (input, correlation), Paddle's rule that
// unlaunched device rows are dropped, and the kernel time the calls of a thread / a rank launched.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/recent_keys.hpp>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// The dense id of each (input, rank) that holds calls. Rows of one input are contiguous and
/// hold few ranks, in runs (Kineto) or interleaved row by row (an nsys export's tables are in
/// start order): a memo of the pairs met lately answers most look-ups, a hash map the others (a
/// job may hold thousands of single-rank inputs).
class rank_groups {
 public:
  /// The id of (input, rank), or npos when it holds no call.
  [[nodiscard]] std::size_t find(std::int32_t input, std::int32_t rank) const {
    auto const k = key(input, rank);
    if (auto const* known = _recent.find(k)) return *known;
    auto const it = _ids.find(k);
    if (it == _ids.end()) return npos;
    _recent.put(k, it->second);
    return it->second;
  }
  /// The id of (input, rank), a new one when it had none.
  std::size_t add(std::int32_t input, std::int32_t rank) {
    auto const k = key(input, rank);
    if (auto const* known = _recent.find(k)) return *known;
    auto const id = _ids.try_emplace(k, _ids.size()).first->second;
    _recent.put(k, id);
    return id;
  }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  static std::uint64_t key(std::int32_t input, std::int32_t rank) {
    return std::uint64_t{static_cast<std::uint32_t>(input)} << 32 |
           static_cast<std::uint32_t>(rank);
  }
  std::unordered_map<std::uint64_t, std::size_t> _ids;
  mutable recent_integers<std::uint64_t, std::size_t> _recent;
};

/// The first api_call row of each (input, rank, correlation). Correlation ids are unique within
/// one process (CUPTI's, and Kineto's per rank); an nsys export of several processes repeats
/// them, so a link never crosses ranks. Ids count up within a process, so an (input, rank) whose
/// ids fill the pages of ids they touch well enough gets a direct table of those pages (8 bytes an
/// id, read nearly in order: kernels come in the order of their calls); the calls of the others
/// share one open-addressing table (linear probing, at most half full; one allocation). Nothing
/// is sized by the job's inputs × ranks.
class call_index {
 public:
  explicit call_index(event_table const& t) : _t(t) {
    std::size_t sparse_calls = 0;
    for_each_row([&](std::size_t i, std::int32_t input) {
      if (!is_call(i)) return;
      auto const g = _groups.add(input, _t.rank[i]);
      if (g == _ranges.size()) _ranges.emplace_back();
      auto& r = _ranges[g];
      auto const c = _t.correlation_of(i);
      r.lo = std::min(r.lo, c), r.hi = std::max(r.hi, c);
      ++r.count;
      if (r.pages.empty() || r.pages.back() != c >> page_bits) r.pages.push_back(c >> page_bits);
    });
    for (auto& r : _ranges) {
      std::sort(r.pages.begin(), r.pages.end());
      r.pages.erase(std::unique(r.pages.begin(), r.pages.end()), r.pages.end());
      r.dense = (r.pages.size() << page_bits) <= 8 * r.count + (std::size_t{1} << 16);
      if (r.dense) r.slots.assign(r.pages.size() << page_bits, -1);
      if (!r.dense) sparse_calls += r.count, r.pages = {};
    }
    _sparse.resize(sparse_calls == 0 ? 0
                                     : std::bit_ceil(std::max<std::size_t>(16, 2 * sparse_calls)));
    for_each_row([&](std::size_t i, std::int32_t input) {
      if (!is_call(i)) return;
      auto const g = _groups.find(input, _t.rank[i]);
      auto const c = _t.correlation_of(i);
      auto const row = static_cast<std::int64_t>(i);
      auto& r = _ranges[g];
      if (r.dense) {
        auto& slot = r.slots[r.slot_of(c)];
        if (slot < 0) slot = row;  // the first call wins
        return;
      }
      auto& s = _sparse[probe(g, c)];
      if (s.row < 0) s = {{c, g}, row};
    });
  }

  /// Calls fn(i, input_of(i)) for every row, in order, input by input (no search per row).
  template <typename Fn>
  void for_each_row(Fn&& fn) const {
    auto const inputs = _t.inputs().size();
    for (std::size_t k = 0, i = 0; k < std::max<std::size_t>(1, inputs); ++k) {
      auto const end = k + 1 < inputs ? _t.input_rows(k).second : _t.size();
      for (; i < end; ++i) fn(i, static_cast<std::int32_t>(k));
    }
  }

  /// The call row with device row `i`'s (input `input`, rank, correlation), or -1.
  [[nodiscard]] std::int64_t find(std::size_t i, std::int32_t input) const {
    auto const c = _t.correlation_of(i);
    if (c < 0) return -1;
    auto const g = _groups.find(input, _t.rank[i]);
    if (g == rank_groups::npos) return -1;
    auto const& r = _ranges[g];
    if (c < r.lo || c > r.hi) return -1;
    if (!r.dense) return _sparse[probe(g, c)].row;
    auto const at = r.slot_of(c);
    return at < r.slots.size() ? r.slots[at] : -1;
  }

 private:
  static constexpr int page_bits = 12;  ///< ids per page of a direct table: 4096
  struct range {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    std::size_t count = 0;
    bool dense = false;
    std::vector<std::int64_t> pages;  ///< the pages (id >> page_bits) of its ids, ascending
    std::vector<std::int64_t> slots;  ///< page k's ids from k << page_bits (dense only)
    mutable std::size_t last = 0;     ///< the page looked up last: calls come nearly in order
    /// The slot of id c (slots.size() when its page holds no call).
    [[nodiscard]] std::size_t slot_of(std::int64_t c) const {
      auto const page = c >> page_bits;
      if (last >= pages.size() || pages[last] != page) {
        auto const it = std::lower_bound(pages.begin(), pages.end(), page);
        if (it == pages.end() || *it != page) return slots.size();
        last = static_cast<std::size_t>(it - pages.begin());
      }
      return (last << page_bits) |
             static_cast<std::size_t>(c & ((std::int64_t{1} << page_bits) - 1));
    }
  };
  struct key {
    std::int64_t correlation = 0;
    std::size_t group = 0;
    friend bool operator==(key const&, key const&) = default;
  };
  struct slot {
    key k;
    std::int64_t row = -1;  ///< -1: empty
  };

  [[nodiscard]] bool is_call(std::size_t i) const {
    return _t.kind[i] == event_kind::api_call && _t.correlation_of(i) >= 0;
  }
  /// The sparse slot holding (group, correlation), or the empty one where it would go.
  [[nodiscard]] std::size_t probe(std::size_t group, std::int64_t correlation) const {
    // A 64-bit mix (splitmix64's finaliser) of both, in unsigned arithmetic.
    std::uint64_t h = static_cast<std::uint64_t>(correlation) * 0x9e3779b97f4a7c15u ^ group;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    h ^= h >> 31;
    std::size_t const mask = _sparse.size() - 1;
    key const k{correlation, group};
    for (std::size_t at = h & mask;; at = (at + 1) & mask)
      if (_sparse[at].row < 0 || _sparse[at].k == k) return at;
  }

  event_table const& _t;
  rank_groups _groups;
  std::vector<range> _ranges;
  std::vector<slot> _sparse;
};

}  // namespace

trace_model::links_part::links_part(trace_model const& model) {
  auto const& t = model.table();
  auto const n = t.size();
  call_index const calls(t);
  launcher = row_refs(n);
  kept.assign(n, 1);
  launches.assign(n, 0);
  calls.for_each_row([&](std::size_t i, std::int32_t input) {
    if (!is_device_activity(t.kind[i])) return;
    auto const call = calls.find(i, input);
    launcher.set(i, call);
    if (call >= 0) launches[static_cast<std::size_t>(call)] = 1;
    if (call < 0 && model.row_producer(i) == producer::paddle) kept[i] = 0;
  });
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

bool trace_model::linked_kept(std::size_t row) const {
  return links().kept[row] != 0;
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
