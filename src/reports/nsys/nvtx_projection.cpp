// SPDX-License-Identifier: Apache-2.0
// nvtx_gpu_proj_sum: the GPU operations' NVTX attributions folded per range into a projected
// span, then per (range name, style) the spans' statistics (backend segmented statistics) and
// the instances' operation counts and nesting.
#include <tracesweep/reports/nsys/nvtx_projection.hpp>

#include <tracesweep/exact_stats.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "reports/nsys/nvtx_attribution.hpp"

namespace tracesweep {

namespace {

struct projection {
  std::int64_t start = 0, end = 0, operations = 0;
};

/// Per range row with GPU operations: its projected span and operation count.
std::map<std::size_t, projection> projections(trace_model const& model) {
  auto const& t = model.table();
  std::map<std::size_t, projection> out;
  for (auto const& [range, op] : stats::nvtx_attributions(model, true)) {
    auto [it, fresh] = out.try_emplace(range, projection{t.start_ns[op], t.end_ns[op], 0});
    auto& p = it->second;
    p.start = std::min(p.start, t.start_ns[op]);
    p.end = std::max(p.end, t.end_ns[op]);
    ++p.operations;
  }
  return out;
}

struct group_sums {
  nvtx_projection_row row;
  std::int64_t levels = 0, children = 0;
};

}  // namespace

std::vector<nvtx_projection_table> compute_nvtx_gpu_proj_sum(trace_model const& model, backend& be,
                                                             bool merge) {
  auto const& t = model.table();
  auto const nesting = stats::nvtx_range_nesting(t);
  std::vector<nvtx_projection_table> out(merge ? 1 : t.inputs().size());
  for (std::size_t g = 0; g < out.size(); ++g)
    out[g].source = merge ? std::string("all inputs") : t.inputs()[g].path;
  std::map<std::tuple<std::size_t, std::string, std::string>, std::uint32_t> ids;
  std::vector<group_sums> sums;
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> spans;
  for (auto const& [range, p] : projections(model)) {
    auto const table = merge ? std::size_t{0} : static_cast<std::size_t>(t.input_of(range));
    std::string style(stats::range_style_name(t, range));
    auto const [it, fresh] =
        ids.try_emplace({table, std::string(t.strings().at(t.name[range])), style},
                        static_cast<std::uint32_t>(sums.size()));
    if (fresh) sums.push_back({});
    auto& s = sums[it->second];
    s.row.range = std::get<1>(it->first), s.row.style = std::move(style);
    ++s.row.instances;
    s.row.total_range = checked_add(s.row.total_range, t.end_ns[range] - t.start_ns[range],
                                    "the time of an NVTX range");
    s.row.total_operations += p.operations;
    s.levels += nesting[range].level, s.children += nesting[range].children;
    keys.push_back(it->second);
    spans.push_back(p.end - p.start);
  }
  std::vector<exact_stats> stats(sums.size());
  if (!keys.empty())
    for (auto& st : be.segmented_stats(keys, spans, {})) stats[st.key] = st;
  for (auto const& [key, id] : ids) {
    auto& s = sums[id];
    auto const d = derive_stats(stats[id], {});
    auto& r = s.row;
    r.total_projected = narrow_sum(stats[id].sum, "the projected time of an NVTX range");
    r.avg = d.mean, r.median = d.median, r.stddev = d.stddev;
    r.min = stats[id].min, r.max = stats[id].max;
    auto const n = static_cast<double>(r.instances);
    r.avg_operations = static_cast<double>(r.total_operations) / n;
    r.avg_level = static_cast<double>(s.levels) / n;
    r.avg_children = static_cast<double>(s.children) / n;
    out[std::get<0>(key)].rows.push_back(std::move(r));
  }
  for (auto& table : out)
    std::sort(table.rows.begin(), table.rows.end(), [](auto const& a, auto const& b) {
      return std::tuple(-a.total_projected, a.range, a.style) <
             std::tuple(-b.total_projected, b.range, b.style);
    });
  return out;
}

}  // namespace tracesweep
