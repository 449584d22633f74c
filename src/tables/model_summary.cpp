// SPDX-License-Identifier: Apache-2.0
// Model Summary (Paddle §1.7): steps and outermost stages per rank; CPU time = durations, GPU time
// = kernel time launched inside (streams summed): Paddle counts calls of the row's own thread lying
// inside it, Kineto calls of any thread of the rank starting in it (the autograd thread launches
// the backward kernels); statistics through the backend.
#include <tracesweep/tables/model_summary.hpp>

#include <algorithm>
#include <array>
#include <numeric>

#include "tables/event_links.hpp"

namespace tracesweep {

namespace {

// Item slots in print order.
enum slot : std::uint32_t {
  step_slot,
  loader_slot,
  forward_slot,
  backward_slot,
  optimizer_slot,
  slot_count
};

slot slot_of(event_kind k) {
  switch (k) {
    case event_kind::profiler_step:
      return step_slot;
    case event_kind::data_loader:
      return loader_slot;
    case event_kind::forward:
      return forward_slot;
    case event_kind::backward:
      return backward_slot;
    default:
      return optimizer_slot;
  }
}

constexpr std::array<char const*, slot_count> paddle_names = {
    "ProfileStep", "Dataloader", "Forward", "Backward", "Optimization"};
constexpr std::array<char const*, slot_count> kineto_names = {
    "ProfilerStep", "DataLoader", "Forward", "Backward", "Optimizer.step"};
}  // namespace

std::vector<rank_model_summary> compute_model_summary(event_table const& table, backend& be) {
  tables::event_links const links(table);
  auto const denom = tables::denominators(links, be);
  auto const nr = links.ranks().size();

  // Model items: every step, and the outermost stage event on each thread.
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table.device[i] < 0 &&
        (table.kind[i] == event_kind::profiler_step || tables::is_stage(table.kind[i])))
      rows.push_back(i);
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    auto ka = std::tuple(table.input[a], table.stream[a], table.start_ns[a], -table.end_ns[a]);
    auto kb = std::tuple(table.input[b], table.stream[b], table.start_ns[b], -table.end_ns[b]);
    return ka < kb;
  });
  std::vector<std::uint32_t> keys;  // rank index × slot_count + slot
  std::vector<std::int64_t> cpu, gpu;
  std::vector<std::int64_t> all_kernel_ns(nr, 0);
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table.kind[i] == event_kind::kernel && links.kept(i))
      all_kernel_ns[tables::rank_index(links, table.rank[i])] +=
          table.end_ns[i] - table.start_ns[i];
  std::int32_t cur_input = -1;
  std::int64_t cur_thread = 0, outer_end = INT64_MIN;
  for (auto i : rows) {
    if (table.input[i] != cur_input || table.stream[i] != cur_thread)
      cur_input = table.input[i], cur_thread = table.stream[i], outer_end = INT64_MIN;
    if (tables::is_stage(table.kind[i])) {
      if (table.start_ns[i] < outer_end) continue;  // inside an outer stage: not descended into
      outer_end = table.end_ns[i];
    }
    auto const r = tables::rank_index(links, table.rank[i]);
    keys.push_back(static_cast<std::uint32_t>(r * slot_count + slot_of(table.kind[i])));
    cpu.push_back(table.end_ns[i] - table.start_ns[i]);
    gpu.push_back(links.paddle(i) ? links.kernel_time_inside(table.input[i], table.stream[i],
                                                             table.start_ns[i], table.end_ns[i])
                                  : links.kernel_time_launched_in(table.rank[i], table.start_ns[i],
                                                                  table.end_ns[i]));
  }
  // segmented_stats groups by key; sort keys with their values first (the backend sorts).
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::uint64_t> sort_keys(keys.begin(), keys.end());
  be.sort_pairs(sort_keys, order);
  std::vector<std::uint32_t> k2(keys.size());
  std::vector<std::int64_t> c2(keys.size()), g2(keys.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    k2[j] = keys[order[j]], c2[j] = cpu[order[j]], g2[j] = gpu[order[j]];
  auto const cs = be.segmented_stats(k2, c2, {});
  auto const gs = be.segmented_stats(k2, g2, {});

  std::vector<rank_model_summary> out(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    out[r].rank = links.ranks()[r];
    out[r].total_ns = denom[r].total_ns;
  }
  for (std::size_t j = 0; j < cs.size(); ++j) {
    auto const r = cs[j].key / slot_count;
    auto const sl = cs[j].key % slot_count;
    model_item m;
    m.name = (links.paddle_rank(out[r].rank) ? paddle_names : kineto_names)[sl];
    m.calls = static_cast<std::int64_t>(cs[j].count);
    m.cpu_total_ns = static_cast<std::int64_t>(cs[j].sum);
    m.cpu_min_ns = cs[j].min, m.cpu_max_ns = cs[j].max;
    m.cpu_avg_ns = derive_stats(cs[j], {}).mean;
    m.gpu_total_ns = static_cast<std::int64_t>(gs[j].sum);
    m.gpu_min_ns = gs[j].min, m.gpu_max_ns = gs[j].max;
    m.gpu_avg_ns = derive_stats(gs[j], {}).mean;
    out[r].items.push_back(std::move(m));
  }
  for (std::size_t r = 0; r < nr; ++r) {
    auto& items = out[r].items;
    bool const has_step = !items.empty() && (items.front().name == paddle_names[step_slot] ||
                                             items.front().name == kineto_names[step_slot]);
    std::int64_t const step_gpu = has_step ? items.front().gpu_total_ns : all_kernel_ns[r];
    model_item others;
    others.name = "Others";
    others.others = true;
    others.cpu_total_ns = out[r].total_ns;
    others.gpu_total_ns = step_gpu;
    for (std::size_t j = has_step ? 1 : 0; j < items.size(); ++j) {
      others.cpu_total_ns -= items[j].cpu_total_ns;
      others.gpu_total_ns -= items[j].gpu_total_ns;
    }
    items.push_back(std::move(others));
    for (auto& m : items) {
      m.cpu_ratio = out[r].total_ns > 0
                        ? static_cast<double>(m.cpu_total_ns) / static_cast<double>(out[r].total_ns)
                        : 0;
      m.gpu_ratio =
          step_gpu > 0 ? static_cast<double>(m.gpu_total_ns) / static_cast<double>(step_gpu) : 0;
    }
  }
  return out;
}

}  // namespace tracesweep
