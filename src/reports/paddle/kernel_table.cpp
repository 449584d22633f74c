// SPDX-License-Identifier: Apache-2.0
// Kernel Summary (Paddle §1.10): the kept kernels' statistics per (rank, name) from the kernel
// statistics pipeline; shares of the rank's kernel time, by total descending.
#include <tracesweep/reports/paddle/kernel_table.hpp>

#include <tracesweep/analysis/kernel_stats.hpp>

#include <algorithm>

namespace tracesweep {

std::vector<rank_kernel_table> compute_kernel_table(trace_model const& model, backend& be) {
  auto const nr = model.ranks().size();
  std::vector<rank_kernel_table> out(nr);
  std::vector<std::int64_t> rank_total(nr, 0);
  for (std::size_t r = 0; r < nr; ++r) out[r].rank = model.ranks()[r];
  kernel_selection selection;
  selection.grouping = kernel_grouping::rank;
  selection.kept_only = true;
  for (auto const& k : compute_kernel_stats(model, be, selection)) {
    auto const& s = k.stats;
    kernel_table_row row;
    row.name = std::string(model.table().strings().at(k.name));
    row.calls = static_cast<std::int64_t>(s.count);
    row.total_ns = narrow_sum(s.sum, "the total time of kernel " + row.name);
    row.max_ns = s.max, row.min_ns = s.min;
    row.avg_ns = derive_stats(s, {}).mean;
    rank_total[k.group] =
        checked_add(rank_total[k.group], row.total_ns, "the kernel time of a rank");
    out[k.group].rows.push_back(std::move(row));
  }
  for (std::size_t r = 0; r < nr; ++r) {
    for (auto& row : out[r].rows)
      row.ratio = rank_total[r] > 0
                      ? static_cast<double>(row.total_ns) / static_cast<double>(rank_total[r])
                      : 0;
    std::stable_sort(out[r].rows.begin(), out[r].rows.end(), [](auto const& a, auto const& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
  }
  return out;
}

}  // namespace tracesweep
