// SPDX-License-Identifier: Apache-2.0
// nvtx_kern_sum: the kernels' NVTX attributions grouped by (range, style, PID, TID, kernel); the
// kernel durations per group go through the backend's segmented statistics.
#include <tracesweep/reports/nsys/nvtx_kernels.hpp>

#include <tracesweep/exact_stats.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "reports/nsys/nvtx_attribution.hpp"

namespace tracesweep {

std::vector<nvtx_kernel_table> compute_nvtx_kern_sum(trace_model const& model, backend& be,
                                                     bool merge) {
  auto const& t = model.table();
  std::vector<nvtx_kernel_table> out(merge ? 1 : t.inputs().size());
  for (std::size_t g = 0; g < out.size(); ++g)
    out[g].source = merge ? std::string("all inputs") : t.inputs()[g].path;
  // Group: (table, range name, style, pid, tid, kernel name id).
  using group_key =
      std::tuple<std::size_t, std::string, std::string, std::int64_t, std::int64_t, string_id>;
  std::map<group_key, std::uint32_t> ids;
  std::vector<std::set<std::size_t>> instances;  // per group: the enclosing range rows
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> values;
  for (auto const& [range, kernel] : stats::nvtx_attributions(model)) {
    auto const table = merge ? std::size_t{0} : static_cast<std::size_t>(t.input_of(range));
    group_key const key{table,
                        std::string(t.strings().at(t.name[range])),
                        std::string(stats::range_style_name(t, range)),
                        t.process_id_of(range),
                        t.stream[range],
                        t.name[kernel]};
    auto const [it, fresh] = ids.try_emplace(key, static_cast<std::uint32_t>(ids.size()));
    if (fresh) instances.emplace_back();
    instances[it->second].insert(range);
    keys.push_back(it->second);
    values.push_back(t.end_ns[kernel] - t.start_ns[kernel]);
  }
  std::vector<exact_stats> stats(ids.size());
  if (!keys.empty())
    for (auto& s : be.segmented_stats(keys, values, {})) stats[s.key] = s;
  for (auto const& [key, id] : ids) {
    auto const& s = stats[id];
    auto const d = derive_stats(s, {});
    nvtx_kernel_row row;
    row.range = std::get<1>(key), row.style = std::get<2>(key);
    row.pid = std::get<3>(key), row.tid = std::get<4>(key);
    row.range_instances = static_cast<std::int64_t>(instances[id].size());
    row.kernel_instances = static_cast<std::int64_t>(s.count);
    row.total = narrow_sum(s.sum, "the kernel time of an NVTX range");
    row.min = s.min, row.max = s.max;
    row.avg = d.mean, row.median = d.median, row.stddev = d.stddev;
    row.kernel = std::string(t.strings().at(std::get<5>(key)));
    out[std::get<0>(key)].rows.push_back(std::move(row));
  }
  for (auto& table : out)
    std::sort(table.rows.begin(), table.rows.end(), [](auto const& a, auto const& b) {
      return std::tie(a.range, a.style, a.pid, a.tid) < std::tie(b.range, b.style, b.pid, b.tid) ||
             (std::tie(a.range, a.style, a.pid, a.tid) ==
                  std::tie(b.range, b.style, b.pid, b.tid) &&
              std::tuple(-a.total, a.kernel) < std::tuple(-b.total, b.kernel));
    });
  return out;
}

}  // namespace tracesweep
