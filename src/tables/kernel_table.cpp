// SPDX-License-Identifier: Apache-2.0
// Kernel Summary (Paddle §1.10): kernel durations per (rank, name) through segmented statistics.
#include <tracesweep/tables/kernel_table.hpp>

#include <algorithm>
#include <unordered_map>

#include "tables/event_links.hpp"

namespace tracesweep {

std::vector<rank_kernel_table> compute_kernel_table(event_table const& table, backend& be) {
  tables::event_links const links(table);
  auto const nr = links.ranks().size();
  std::vector<std::uint32_t> name_index, rank_of;
  std::vector<std::int64_t> values;
  std::vector<string_id> names;  // dense name index → string id
  std::unordered_map<string_id, std::uint32_t> dense;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table.kind[i] != event_kind::kernel || !links.kept(i)) continue;
    auto const [it, fresh] = dense.emplace(table.name[i], static_cast<std::uint32_t>(names.size()));
    if (fresh) names.push_back(table.name[i]);
    name_index.push_back(it->second);
    rank_of.push_back(static_cast<std::uint32_t>(tables::rank_index(links, table.rank[i])));
    values.push_back(table.end_ns[i] - table.start_ns[i]);
  }
  // Key = rank index × distinct names + name index.
  std::vector<std::uint32_t> keys(values.size());
  for (std::size_t j = 0; j < keys.size(); ++j)
    keys[j] = static_cast<std::uint32_t>(rank_of[j] * names.size() + name_index[j]);
  std::vector<rank_kernel_table> out(nr);
  std::vector<std::int64_t> rank_total(nr, 0);
  for (std::size_t r = 0; r < nr; ++r) out[r].rank = links.ranks()[r];
  for (auto const& s : be.segmented_stats(keys, values, {})) {
    auto const r = s.key / names.size();
    kernel_table_row row;
    row.name = std::string(table.strings().at(names[s.key % names.size()]));
    row.calls = static_cast<std::int64_t>(s.count);
    row.total_ns = static_cast<std::int64_t>(s.sum);
    row.max_ns = s.max, row.min_ns = s.min;
    row.avg_ns = derive_stats(s, {}).mean;
    rank_total[r] += row.total_ns;
    out[r].rows.push_back(std::move(row));
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
