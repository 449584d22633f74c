// SPDX-License-Identifier: Apache-2.0
// nvtx_pushpop_trace rows: per thread one sweep over the push/pop ranges by start, the ranges
// begun so far kept by end, each range's parent the tightest of those still open around it.
#include <tracesweep/reports/nsys/nvtx_pushpop.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

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

/// Per row: the range's id (see compute_nvtx_pushpop_trace) and its name as nsys prints it.
void ids_and_names(event_table const& t, std::vector<std::int64_t>& id,
                   std::vector<std::string>& name) {
  auto const source = stats::side_table_index(t.size(), t.range_sources);
  std::vector<std::int64_t> position(t.inputs().size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_push_pop(t, i)) continue;
    auto const n = ++position[static_cast<std::size_t>(t.input_of(i))];
    auto const own = std::string(t.strings().at(t.name[i]));
    if (source[i] < 0) {
      id[i] = n, name[i] = std::string(":").append(own);
      continue;
    }
    auto const& s = t.range_sources.values[static_cast<std::size_t>(source[i])];
    id[i] = s.id;
    name[i] = s.domain_in_name ? own : std::string(":").append(own);
  }
}

}  // namespace

std::vector<nvtx_pushpop_table> compute_nvtx_pushpop_trace(trace_model const& model, bool merge) {
  auto const& t = model.table();
  auto const parent = parent_rows(t);
  std::vector<std::int64_t> id(t.size(), 0);
  std::vector<std::string> name(t.size());
  ids_and_names(t, id, name);
  std::vector<nvtx_pushpop_row> rows(t.size());
  std::vector<std::size_t> ranges;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_push_pop(t, i)) ranges.push_back(i);
  // Parents come before their children in (start, −end, row) order.
  std::sort(ranges.begin(), ranges.end(), [&](auto a, auto b) {
    return std::tuple(t.start_ns[a], -t.end_ns[a], a) < std::tuple(t.start_ns[b], -t.end_ns[b], b);
  });
  for (auto const i : ranges) {
    auto& r = rows[i];
    r.start_ns = t.start_ns[i], r.end_ns = t.end_ns[i];
    r.name = std::move(name[i]);
    r.pid = t.process_id_of(i);
    r.tid = t.stream[i];
    r.id = id[i];
    r.stack = std::string(":").append(std::to_string(r.id));
    if (parent[i] < 0) continue;
    auto& p = rows[static_cast<std::size_t>(parent[i])];
    r.parent = p.id;
    r.level = p.level + 1;
    r.stack = p.stack + r.stack;
    ++p.children;
    p.child_duration += r.end_ns - r.start_ns;
  }
  std::vector<nvtx_pushpop_table> out(merge ? 1 : t.inputs().size());
  if (merge) out[0].source = "all inputs";
  for (std::size_t k = 0; !merge && k < out.size(); ++k) out[k].source = t.inputs()[k].path;
  std::sort(ranges.begin(), ranges.end(), [&](auto a, auto b) {
    return std::tuple(t.start_ns[a], t.end_ns[a] - t.start_ns[a], t.input_of(a), id[a]) <
           std::tuple(t.start_ns[b], t.end_ns[b] - t.start_ns[b], t.input_of(b), id[b]);
  });
  for (auto const i : ranges)
    out[merge ? 0 : static_cast<std::size_t>(t.input_of(i))].rows.push_back(std::move(rows[i]));
  return out;
}

}  // namespace tracesweep
