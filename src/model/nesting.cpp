// SPDX-License-Identifier: Apache-2.0
// Host-range nesting: one sweep per (input, thread) over its host rows with a stack of open
// ranges, giving every host row its parent and the outermost stages (see trace_model.hpp).
#include <algorithm>
#include <climits>
#include <tuple>

#include "model/model_parts.hpp"

namespace tracesweep {

trace_model::nesting_part::nesting_part(event_table const& t) {
  auto const n = t.size();
  parent.assign(n, -1);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < n; ++i)
    if (t.device[i] < 0) rows.push_back(i);
  // An input's rows are contiguous: sort each input's host rows by thread, then time.
  auto order = [&](std::size_t i) {
    return std::tuple(t.stream[i], t.start_ns[i], t.kind[i] == event_kind::api_call, -t.end_ns[i],
                      i);
  };
  for (std::size_t k = 0; k < t.inputs().size(); ++k) {
    auto const [first, end] = t.input_rows(k);
    auto const from = std::lower_bound(rows.begin(), rows.end(), first);
    auto const to = std::lower_bound(from, rows.end(), end);
    std::sort(from, to, [&](std::size_t a, std::size_t b) { return order(a) < order(b); });
  }

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
          parent[i] = static_cast<std::int64_t>(o);
          break;
        }
      }
      continue;
    }
    if (!open.empty()) parent[i] = static_cast<std::int64_t>(open.back());
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
  return nesting().outermost_stages;
}

}  // namespace tracesweep
