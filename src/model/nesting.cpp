// SPDX-License-Identifier: Apache-2.0
// Host-range nesting: one sweep per (input, thread) over its host rows with a stack of open
// ranges, giving every host row its parent and the outermost stages (see trace_model.hpp).
#include <algorithm>
#include <climits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <tracesweep/recent_keys.hpp>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// Host rows in nesting order: by input, then thread, then (start, api calls after ranges,
/// longer first, row). An input's rows are contiguous, and a thread's rows come in long runs
/// already in that order (a producer's table of calls, by start, however the threads interleave
/// there), with short runs between (nsys records an NVTX range when it ends, after the ranges
/// inside it): each thread's rows are gathered in row order, the rows of short runs sorted, and
/// the runs merged.
class nesting_order {
 public:
  explicit nesting_order(event_table const& t) : _t(t) {}

  std::vector<std::size_t> rows() {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < _t.inputs().size(); ++k) {
      auto const [first, end] = _t.input_rows(k);
      auto const bounds = gather_by_thread(first, end, out);
      for (std::size_t r = 0; r + 1 < bounds.size(); ++r)
        order_thread(out, bounds[r], bounds[r + 1]);
    }
    return out;
  }

 private:
  /// Runs this long stay whole and are merged; the rows of shorter ones are sorted.
  static constexpr std::size_t long_run = 256;

  [[nodiscard]] bool before(std::size_t a, std::size_t b) const {
    auto key = [this](std::size_t i) {
      return std::tuple(_t.start_ns[i], _t.kind[i] == event_kind::api_call, -_t.end_ns[i], i);
    };
    return key(a) < key(b);
  }

  /// Appends the host rows of [first, end) to `out` by thread, threads ascending, each thread's
  /// rows in row order (a count per thread, then each row moved to its thread's place); returns
  /// the threads' bounds in `out`.
  std::vector<std::size_t> gather_by_thread(std::size_t first, std::size_t end,
                                            std::vector<std::size_t>& out) const {
    std::map<std::int64_t, std::size_t> next;  // thread → its count, then its next place
    // A thread's rows come in runs (Kineto) or interleaved with the other threads' (an nsys
    // table in start order): its place is found through a memo of the threads met lately.
    auto for_each_host_row = [&](auto&& f) {
      recent_integers<std::int64_t, std::size_t*> recent;
      for (auto i = first; i < end; ++i) {
        if (_t.device[i] >= 0) continue;
        auto const thread = _t.stream[i];
        auto* const* known = recent.find(thread);
        std::size_t* slot = known != nullptr ? *known : &next[thread];
        if (known == nullptr) recent.put(thread, slot);
        f(i, *slot);
      }
    };
    for_each_host_row([](std::size_t, std::size_t& count) { ++count; });
    std::vector<std::size_t> bounds{out.size()};
    for (auto& [thread, count] : next)
      bounds.push_back(bounds.back() + std::exchange(count, bounds.back()));
    out.resize(bounds.back());
    for_each_host_row([&](std::size_t i, std::size_t& at) { out[at++] = i; });
    return bounds;
  }

  /// Orders out[b, e), one thread's rows in row order: runs already in order that are long are
  /// kept, the rows of the others sorted as one more run, then the runs merged pairwise.
  void order_thread(std::vector<std::size_t>& out, std::size_t b, std::size_t e) {
    auto const less = [this](std::size_t x, std::size_t y) { return before(x, y); };
    auto const at = [](std::vector<std::size_t>& v, std::size_t k) {
      return v.begin() + static_cast<std::ptrdiff_t>(k);
    };
    _runs.clear(), _shorts.clear();
    std::vector<std::size_t> bounds{0};  // of the runs in _runs
    for (auto r = b; r < e;) {
      auto s = r + 1;
      while (s < e && !less(out[s], out[s - 1])) ++s;
      auto& to = s - r >= long_run ? _runs : _shorts;
      to.insert(to.end(), at(out, r), at(out, s));
      if (&to == &_runs) bounds.push_back(_runs.size());
      r = s;
    }
    if (bounds.size() == 2 && _shorts.empty()) return;  // one run: in order already
    std::sort(_shorts.begin(), _shorts.end(), less);
    _runs.insert(_runs.end(), _shorts.begin(), _shorts.end());
    bounds.push_back(_runs.size());
    while (bounds.size() > 2) {
      std::vector<std::size_t> merged{0};
      std::size_t const runs = bounds.size() - 1;
      for (std::size_t r = 0; r < runs; r += 2) {
        if (r + 1 < runs)
          std::inplace_merge(at(_runs, bounds[r]), at(_runs, bounds[r + 1]),
                             at(_runs, bounds[r + 2]), less);
        merged.push_back(bounds[std::min(r + 2, runs)]);
      }
      bounds = std::move(merged);
    }
    std::copy(_runs.begin(), _runs.end(), at(out, b));
  }

  event_table const& _t;
  std::vector<std::size_t> _runs, _shorts;  // kept between threads: one allocation each
};

}  // namespace

trace_model::nesting_part::nesting_part(event_table const& t) {
  auto const n = t.size();
  parent = row_refs(n);
  auto const rows = nesting_order(t).rows();

  std::vector<std::size_t> open;  // the stack of open ranges of the current thread
  std::int64_t stage_end = INT64_MIN;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    auto const i = rows[k];
    if (k == 0 || t.input_of(i) != t.input_of(rows[k - 1]) || t.stream[i] != t.stream[rows[k - 1]])
      open.clear(), stage_end = INT64_MIN;
    while (!open.empty() && t.end_ns[open.back()] <= t.start_ns[i]) open.pop_back();
    if (t.kind[i] == event_kind::api_call) {
      for (auto j = open.size(); j-- > 0;) {
        auto const o = open[j];
        if (t.start_ns[o] <= t.start_ns[i] && t.end_ns[i] <= t.end_ns[o]) {
          parent.set(i, static_cast<std::int64_t>(o));
          break;
        }
      }
      continue;
    }
    if (!open.empty()) parent.set(i, static_cast<std::int64_t>(open.back()));
    open.push_back(i);
    if (is_stage(t.kind[i]) && t.start_ns[i] >= stage_end) {
      outermost_stages.push_back(i);
      stage_end = t.end_ns[i];
    }
  }
}

std::int64_t trace_model::parent(std::size_t row) const {
  return nesting().parent[row];
}

std::size_t trace_model::depth(std::size_t row) const {
  auto const& p = nesting().parent;
  std::size_t d = 0;
  for (auto r = p[row]; r >= 0; r = p[static_cast<std::size_t>(r)]) ++d;
  return d;
}

std::span<std::size_t const> trace_model::outermost_stages() const {
  // A table without stage rows (an nsys export's) has none: no nesting is built to find that.
  auto const& kinds = table().kind;
  if (std::none_of(kinds.begin(), kinds.end(), is_stage)) return {};
  return nesting().outermost_stages;
}

}  // namespace tracesweep
