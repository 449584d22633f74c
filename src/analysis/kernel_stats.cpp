// SPDX-License-Identifier: Apache-2.0
// One duration-statistics call over the selected kernel rows (the start and end columns as the
// job holds them), keyed by group × dense name index (names numbered in id order, so the keys
// come back in (group, name id) order). When groups × names do not fit the 32-bit keys,
// consecutive groups are computed a batch at a time.
#include <tracesweep/analysis/kernel_stats.hpp>

#include <algorithm>
#include <limits>

namespace tracesweep {

std::vector<kernel_name_stats> compute_kernel_stats(trace_model const& model, backend& be,
                                                    kernel_selection const& selection) {
  auto const& t = model.table();
  auto group_of = [&](std::size_t i) -> std::uint32_t {
    switch (selection.grouping) {
      case kernel_grouping::input:
        return static_cast<std::uint32_t>(t.input_of(i));
      case kernel_grouping::rank:
        return static_cast<std::uint32_t>(model.rank_index(t.rank[i]));
      case kernel_grouping::job:
        break;
    }
    return 0;
  };
  std::size_t const groups = selection.grouping == kernel_grouping::input  ? t.inputs().size()
                             : selection.grouping == kernel_grouping::rank ? model.ranks().size()
                                                                           : 1;

  // The selected rows, and their names numbered densely in id order.
  constexpr auto unused = std::numeric_limits<std::uint32_t>::max();
  auto const selected = [&](std::size_t i) {
    return t.kind[i] == event_kind::kernel && (!selection.kept_only || model.kept(i));
  };
  std::size_t count = 0;
  for (std::size_t i = 0; i < t.size(); ++i) count += selected(i) ? 1 : 0;
  // Where every row is selected (an nsys kernel report reads only kernels) the rows are not
  // listed: 8 bytes a row of fresh memory fewer.
  bool const every_row = count == t.size();
  std::vector<std::size_t> rows;
  if (!every_row) rows.reserve(count);
  std::vector<std::uint32_t> dense(t.strings().size(), unused);
  for (std::size_t i = 0; i < t.size(); ++i)
    if (selected(i)) {
      if (!every_row) rows.push_back(i);
      dense[t.name[i]] = 0;
    }
  auto const for_each_selected = [&](auto&& f) {
    if (every_row) {
      for (std::size_t i = 0; i < t.size(); ++i) f(i);
    } else {
      for (auto const i : rows) f(i);
    }
  };
  std::vector<string_id> names;
  for (std::size_t id = 0; id < dense.size(); ++id)
    if (dense[id] != unused) {
      dense[id] = static_cast<std::uint32_t>(names.size());
      names.push_back(static_cast<string_id>(id));
    }
  std::vector<kernel_name_stats> out;
  if (count == 0) return out;

  std::uint64_t const per_batch =
      std::max<std::uint64_t>(1, (std::uint64_t{1} << 32) / names.size());
  std::vector<std::uint32_t> keys;
  std::vector<std::size_t> batch;
  keys.reserve(count);
  for (std::uint64_t first = 0; first < groups; first += per_batch) {
    bool const whole = first == 0 && per_batch >= groups;
    keys.clear(), batch.clear();
    for_each_selected([&](std::size_t i) {
      std::uint64_t const g = group_of(i);
      if (g < first || g >= first + per_batch) return;
      keys.push_back(static_cast<std::uint32_t>((g - first) * names.size() + dense[t.name[i]]));
      if (!whole) batch.push_back(i);
    });
    if (keys.empty()) continue;
    row_durations const taken{t.start_ns, t.end_ns, whole ? std::span(rows) : std::span(batch),
                              keys, whole && every_row};
    for (auto& s : be.duration_stats(taken, selection.quantiles)) {
      kernel_name_stats k;
      k.group = static_cast<std::uint32_t>(first + s.key / names.size());
      k.name = names[s.key % names.size()];
      k.stats = std::move(s);
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace tracesweep
