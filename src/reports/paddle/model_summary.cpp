// SPDX-License-Identifier: Apache-2.0
// Model Summary (Paddle §1.7): steps and outermost stages per rank; CPU time = durations, GPU time
// = kernel time launched inside (streams summed): Paddle counts calls of the row's own thread lying
// inside it, Kineto calls of any thread of the rank starting in it (the autograd thread launches
// the backward kernels); statistics through the backend.
#include <tracesweep/exact_stats.hpp>
#include <tracesweep/reports/paddle/model_summary.hpp>

#include <algorithm>

#include "reports/paddle/model_items.hpp"

namespace tracesweep {

using tables::model_slot_count;

std::vector<rank_model_summary> compute_model_summary(job_session const& session) {
  auto const& model = session.model();
  auto& be = session.primitives();
  auto const& table = model.table();
  auto const nr = model.ranks().size();

  // Model items: every step, and the outermost stage events of each thread.
  std::vector<std::uint32_t> keys;  // rank index × model_slot_count + slot
  std::vector<std::int64_t> cpu, gpu;
  auto add = [&](std::size_t r, std::size_t i) {
    keys.push_back(
        static_cast<std::uint32_t>(r * model_slot_count + tables::slot_of(table.kind[i])));
    cpu.push_back(table.end_ns[i] - table.start_ns[i]);
    gpu.push_back(
        model.row_producer(i) == producer::paddle
            ? model.kernel_time_inside(table.input_of(i), table.stream[i], table.start_ns[i],
                                       table.end_ns[i])
            : model.kernel_time_launched_in(table.rank[i], table.start_ns[i], table.end_ns[i]));
  };
  for (std::size_t r = 0; r < nr; ++r)
    for (auto i : model.steps(r)) add(r, i);
  for (auto i : model.outermost_stages()) add(model.rank_index(table.rank[i]), i);
  std::vector<std::int64_t> all_kernel_ns(nr, 0);
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table.kind[i] == event_kind::kernel && model.kept(i))
      all_kernel_ns[model.rank_index(table.rank[i])] =
          checked_add(all_kernel_ns[model.rank_index(table.rank[i])],
                      table.end_ns[i] - table.start_ns[i], "the kernel time of a rank");
  // segmented_stats groups the keys itself, in any order.
  auto const cs = be.segmented_stats(keys, cpu, {});
  auto const gs = be.segmented_stats(keys, gpu, {});

  std::vector<rank_model_summary> out(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    out[r].rank = model.ranks()[r];
    out[r].total_ns = session.rank_denominator(r).total_ns;
  }
  for (std::size_t j = 0; j < cs.size(); ++j) {
    auto const r = cs[j].key / model_slot_count;
    auto const sl = static_cast<tables::model_slot>(cs[j].key % model_slot_count);
    model_item m;
    m.name = tables::item_name(model, out[r].rank, sl);
    m.calls = static_cast<std::int64_t>(cs[j].count);
    m.cpu_total_ns = narrow_sum(cs[j].sum, "the host time of " + m.name);
    m.cpu_min_ns = cs[j].min, m.cpu_max_ns = cs[j].max;
    m.cpu_avg_ns = derive_stats(cs[j], {}).mean;
    m.gpu_total_ns = narrow_sum(gs[j].sum, "the device time of " + m.name);
    m.gpu_min_ns = gs[j].min, m.gpu_max_ns = gs[j].max;
    m.gpu_avg_ns = derive_stats(gs[j], {}).mean;
    out[r].items.push_back(std::move(m));
  }
  for (std::size_t r = 0; r < nr; ++r) {
    auto& items = out[r].items;
    bool const has_step = !model.steps(r).empty();
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
