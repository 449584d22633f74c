// SPDX-License-Identifier: Apache-2.0
// nvtx_pushpop_trace rows: per thread one sweep over the push/pop ranges by start, the ranges
// begun so far kept by end, each range's parent the tightest of those still open around it.
#include <tracesweep/reports/nsys/nvtx_pushpop.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "reports/nsys/launch_details.hpp"
#include "reports/nsys/nvtx_attribution.hpp"

namespace tracesweep {

namespace {

bool is_push_pop(event_table const& t, std::size_t i) {
  return is_host_range(t, i) && t.subkind[i] == static_cast<std::uint8_t>(range_style::push_pop);
}

/// Per row: the parent row of each push/pop range (-1 for a root or a row that is no range).
std::vector<std::int64_t> parent_rows(event_table const& t) {
  std::vector<std::int64_t> parent(t.size(), -1);
  auto order = [&](std::size_t r) { return std::tuple(t.start_ns[r], -t.end_ns[r], r); };
  stats::sweep_ranges_by_thread(
      t, [&](std::size_t i) { return is_push_pop(t, i); },
      [&](std::size_t a, stats::open_ranges const& open) {
        std::int64_t best = -1, tightest = 0;
        for (auto it = open.lower_bound({t.end_ns[a], 0}); it != open.end(); ++it) {
          auto const p = it->second;
          auto const tightness = (t.start_ns[a] - t.start_ns[p]) + (t.end_ns[p] - t.end_ns[a]);
          bool const later = best < 0 || order(p) > order(static_cast<std::size_t>(best));
          if (best < 0 || tightness < tightest || (tightness == tightest && later))
            best = static_cast<std::int64_t>(p), tightest = tightness;
        }
        parent[a] = best;
      });
  return parent;
}

/// Per row: the range's id (see compute_nvtx_pushpop_trace).
std::vector<std::int64_t> range_ids(event_table const& t) {
  std::vector<std::int64_t> id(t.size(), 0);
  auto const source = stats::side_table_index(t.size(), t.range_sources);
  std::vector<std::int64_t> position(t.inputs().size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_push_pop(t, i)) continue;
    auto const n = ++position[static_cast<std::size_t>(t.input_of(i))];
    id[i] = source[i] < 0 ? n : t.range_sources.values[static_cast<std::size_t>(source[i])].id;
  }
  return id;
}

}  // namespace

nvtx_pushpop_trace compute_nvtx_pushpop_trace(trace_model const& model, bool merge) {
  auto const& t = model.table();
  auto const parent = parent_rows(t);
  auto const id = range_ids(t);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_push_pop(t, i)) rows.push_back(i);
  // Parents come before their children in (start, −end, row) order.
  std::sort(rows.begin(), rows.end(), [&](auto a, auto b) {
    return std::tuple(t.start_ns[a], -t.end_ns[a], a) < std::tuple(t.start_ns[b], -t.end_ns[b], b);
  });
  nvtx_pushpop_trace out{&t, {}, std::vector<nvtx_pushpop_table>(merge ? 1 : t.inputs().size())};
  auto& ranges = out.ranges;
  std::vector<std::int64_t> range_of(t.size(), -1);
  for (auto const i : rows) {
    nvtx_pushpop_range r{i, id[i]};
    if (parent[i] >= 0) {
      r.parent = range_of[static_cast<std::size_t>(parent[i])];
      auto& p = ranges[static_cast<std::size_t>(r.parent)];
      r.level = p.level + 1;
      ++p.children;
      p.child_duration += t.end_ns[i] - t.start_ns[i];
    }
    range_of[i] = static_cast<std::int64_t>(ranges.size());
    ranges.push_back(r);
  }
  if (merge) out.tables[0].source = "all inputs";
  for (std::size_t k = 0; !merge && k < out.tables.size(); ++k)
    out.tables[k].source = t.inputs()[k].path;
  std::vector<std::size_t> listed(ranges.size());
  for (std::size_t k = 0; k < listed.size(); ++k) listed[k] = k;
  auto key = [&](std::size_t k) {
    auto const i = ranges[k].row;
    return std::tuple(t.start_ns[i], t.end_ns[i] - t.start_ns[i], t.input_of(i), ranges[k].id);
  };
  std::sort(listed.begin(), listed.end(), [&](auto a, auto b) { return key(a) < key(b); });
  for (auto const k : listed)
    out.tables[merge ? 0 : static_cast<std::size_t>(t.input_of(ranges[k].row))].rows.push_back(k);
  return out;
}

nvtx_pushpop_row nvtx_pushpop_row_of(nvtx_pushpop_trace const& trace, std::size_t k) {
  auto const& t = *trace.events;
  auto const& range = trace.ranges[k];
  auto const i = range.row;
  nvtx_pushpop_row r;
  r.start_ns = t.start_ns[i], r.end_ns = t.end_ns[i];
  r.child_duration = range.child_duration;
  auto const* source = t.range_sources.find(i);
  r.name = source && source->domain_in_name ? std::string() : std::string(":");
  r.name.append(t.strings().at(t.name[i]));
  r.pid = t.process_id_of(i);
  r.tid = t.stream[i];
  r.level = range.level;
  r.children = range.children;
  r.id = range.id;
  if (range.parent >= 0) r.parent = trace.ranges[static_cast<std::size_t>(range.parent)].id;
  // The stack: ":<root id>:…:<id>", from the chain of parents.
  std::vector<std::int64_t> chain;
  for (auto at = static_cast<std::int64_t>(k); at >= 0;
       at = trace.ranges[static_cast<std::size_t>(at)].parent)
    chain.push_back(trace.ranges[static_cast<std::size_t>(at)].id);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    r.stack.append(":").append(std::to_string(*it));
  return r;
}

}  // namespace tracesweep
