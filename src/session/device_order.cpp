// SPDX-License-Identifier: Apache-2.0
// Each device's activity in start order: placed device by device and its few ascending runs
// merged (an nsys export: a run per table), else sorted by the backend (key: device id above the
// start's offset from the earliest start).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>

#include "session/session_parts.hpp"

namespace tracesweep::session_detail {

namespace {

/// Orders `rows` (all device activity) by (device, start, row) on the host.
void sort_on_host(trace_model const& model, std::vector<std::size_t>& rows) {
  auto const groups = model.device_group();
  auto const& start = model.table().start_ns;
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    if (groups[a] != groups[b]) return groups[a] < groups[b];
    if (start[a] != start[b]) return start[a] < start[b];
    return a < b;
  });
}

/// At most this many ascending runs per device are merged rather than sorted.
constexpr std::size_t few_runs = 16;

/// Places every device row in `out` (its offsets set) device by device in row order, then merges
/// each device's ascending runs of starts pairwise: (device, start, row) order.
void merge_runs_by_device(trace_model const& model, device_rows& out) {
  auto const groups = model.device_group();
  auto const& start = model.table().start_ns;
  out.rows.resize(out.offsets.back());
  std::vector<std::size_t> next(out.offsets.begin(), out.offsets.end() - 1);
  for (std::size_t i = 0; i < start.size(); ++i)
    if (groups[i] != no_device) out.rows[next[groups[i]]++] = i;
  auto const before = [&](std::size_t a, std::size_t b) {
    return start[a] != start[b] ? start[a] < start[b] : a < b;
  };
  auto const at = [&](std::size_t k) { return out.rows.begin() + static_cast<std::ptrdiff_t>(k); };
  for (std::size_t g = 0; g + 1 < out.offsets.size(); ++g) {
    std::vector<std::size_t> bounds{out.offsets[g]};
    for (auto k = out.offsets[g] + 1; k < out.offsets[g + 1]; ++k)
      if (before(out.rows[k], out.rows[k - 1])) bounds.push_back(k);
    bounds.push_back(out.offsets[g + 1]);
    while (bounds.size() > 2) {
      std::vector<std::size_t> merged{bounds.front()};
      for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
        if (r + 2 < bounds.size())
          std::inplace_merge(at(bounds[r]), at(bounds[r + 1]), at(bounds[r + 2]), before);
        merged.push_back(bounds[std::min(r + 2, bounds.size() - 1)]);
      }
      bounds = std::move(merged);
    }
  }
}

}  // namespace

device_rows order_device_rows(trace_model const& model, backend& be) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::size_t const device_count = model.devices().size();
  device_rows out;
  // One pass for the counts and the time range, so the keys are made once at their size and the
  // row list only after the sort (no list gathered first, nothing grown by doubling).
  out.offsets.assign(device_count + 1, 0);
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  // Each device's rows in row order come as ascending runs of starts: one per table of an nsys
  // export (kernels, copies, sets: each table in start order), many in a Kineto trace's.
  std::vector<std::int64_t> last_start(device_count, std::numeric_limits<std::int64_t>::min());
  std::vector<std::size_t> runs(device_count, 1);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == no_device) continue;
    ++out.offsets[groups[i] + 1];
    lo = std::min(lo, t.start_ns[i]);
    hi = std::max(hi, t.start_ns[i]);
    runs[groups[i]] += t.start_ns[i] < last_start[groups[i]] ? 1 : 0;
    last_start[groups[i]] = t.start_ns[i];
  }
  std::partial_sum(out.offsets.begin(), out.offsets.end(), out.offsets.begin());
  std::size_t const n = out.offsets.back();
  if (n == 0) return out;
  if (*std::max_element(runs.begin(), runs.end()) <= few_runs) {
    merge_runs_by_device(model, out);
    return out;
  }

  int const group_bits = std::bit_width(device_count);
  auto const span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  int const time_bits = std::bit_width(span);
  bool const fits = group_bits + time_bits <= 64 && t.size() <= UINT32_MAX;
  if (!fits) {
    out.rows.reserve(n);
    for (std::size_t i = 0; i < t.size(); ++i)
      if (groups[i] != no_device) out.rows.push_back(i);
    sort_on_host(model, out.rows);
    return out;
  }
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0, k = 0; i < t.size(); ++i) {
    if (groups[i] == no_device) continue;
    auto const offset = static_cast<std::uint64_t>(t.start_ns[i]) - static_cast<std::uint64_t>(lo);
    keys[k] = (time_bits == 64 ? 0 : std::uint64_t{groups[i]} << time_bits) | offset;
    values[k++] = static_cast<std::uint32_t>(i);
  }
  // Rows are gathered in row order and the sort is stable: equal starts stay by row.
  be.sort_pairs(keys, values, group_bits + time_bits);
  keys = {};
  out.rows.assign(values.begin(), values.end());
  return out;
}

}  // namespace tracesweep::session_detail
