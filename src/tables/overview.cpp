// SPDX-License-Identifier: Apache-2.0
// Overview Summary (Paddle §1.6): per rank and type, host time = |∪ over threads|, device time =
// |∪ over devices and streams| (unions by the backend); stage rows come from the model summary
// (outermost events, durations added) and Paddle's Communication rows from its distributed split.
#include <tracesweep/tables/overview.hpp>

#include <tracesweep/tables/model_summary.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "tables/event_links.hpp"
#include "tables/paddle_comm.hpp"

namespace tracesweep {

namespace {

int device_order(std::string const& type) {
  static constexpr char const* order[] = {"Kernel",     "kernel", "Memcpy",
                                          "gpu_memcpy", "Memset", "gpu_memset"};
  for (int k = 0; k < 6; ++k)
    if (type == order[k]) return k / 2;
  return type == "Communication" ? 4 : 3;
}

}  // namespace

std::vector<rank_overview> compute_overview(event_table const& table, backend& be) {
  tables::event_links const links(table);
  auto const denom = tables::denominators(links, be);
  auto const nr = links.ranks().size();

  // Group = (rank, type, host/device) → dense id.
  std::map<std::tuple<std::size_t, bool, std::string>, group_id> groups;
  std::vector<std::int64_t> s, e, calls;
  std::vector<group_id> g;
  std::vector<std::int8_t> stage_group;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!links.kept(i)) continue;
    bool const dev = table.device[i] >= 0;
    auto const key = std::tuple(tables::rank_index(links, table.rank[i]), dev, links.type_label(i));
    auto [it, fresh] = groups.emplace(key, static_cast<group_id>(calls.size()));
    if (fresh) calls.push_back(0), stage_group.push_back(tables::is_stage(table.kind[i]));
    ++calls[it->second];
    s.push_back(table.start_ns[i]), e.push_back(table.end_ns[i]), g.push_back(it->second);
  }
  auto const busy = busy_per_group(be.union_by_group({s, e, g}), calls.size());

  std::vector<rank_overview> out(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    out[r].rank = links.ranks()[r];
    out[r].total_ns = denom[r].total_ns;
    out[r].total_from = denom[r].from_steps ? "steps" : "span";
  }
  auto const model = compute_model_summary(table, be);
  for (auto const& [key, id] : groups) {
    auto const& [r, dev, type] = key;
    overview_row row{type, dev, calls[id], busy[id], 0, "union"};
    if (stage_group[id] && !dev) {
      for (auto const& m : model[r].items)
        if (m.name == type) row.calls = m.calls, row.time_ns = m.cpu_total_ns, row.rule = "sum";
    }
    out[r].rows.push_back(std::move(row));
  }

  // Paddle: Communication rows are the distributed split's unions; calls = distinct ranges.
  auto const split = tables::paddle_comm_split(links);
  std::vector<std::int64_t> cs, ce;
  std::vector<group_id> cg;
  std::vector<std::set<std::pair<std::int64_t, std::int64_t>>> distinct(2 * nr);
  for (std::size_t r = 0; r < nr; ++r) {
    for (int side = 0; side < 2; ++side)
      for (auto i : side ? split[r].gpu_comm : split[r].cpu_comm) {
        cs.push_back(table.start_ns[i]), ce.push_back(table.end_ns[i]);
        cg.push_back(static_cast<group_id>(2 * r + side));
        distinct[2 * r + side].insert({table.start_ns[i], table.end_ns[i]});
      }
  }
  auto const comm = busy_per_group(be.union_by_group({cs, ce, cg}), 2 * nr);
  for (std::size_t r = 0; r < nr; ++r)
    for (int side = 0; side < 2; ++side) {
      if (distinct[2 * r + side].empty()) continue;
      auto& rows = out[r].rows;
      auto it = std::find_if(rows.begin(), rows.end(), [&](overview_row const& x) {
        return x.type == "Communication" && x.device == (side == 1);
      });
      if (it == rows.end()) it = rows.insert(rows.end(), overview_row{"Communication", side == 1});
      it->calls = static_cast<std::int64_t>(distinct[2 * r + side].size());
      it->time_ns = comm[2 * r + side];
      it->rule = "union";
    }

  for (auto& ro : out) {
    for (auto& row : ro.rows)
      row.ratio =
          ro.total_ns > 0 ? static_cast<double>(row.time_ns) / static_cast<double>(ro.total_ns) : 0;
    std::stable_sort(ro.rows.begin(), ro.rows.end(),
                     [](overview_row const& a, overview_row const& b) {
                       if (a.device != b.device) return !a.device;
                       if (!a.device)
                         return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.type < b.type;
                       auto const oa = device_order(a.type), ob = device_order(b.type);
                       return oa != ob ? oa < ob : a.type < b.type;
                     });
  }
  return out;
}

}  // namespace tracesweep
