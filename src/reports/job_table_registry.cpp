// SPDX-License-Identifier: Apache-2.0
// The job tables, one entry each, in the order their result tables are written: the
// TensorBoard overview, Paddle's four summaries of --table all, the operator tables, Paddle's
// other summaries, memory.
#include <tracesweep/reports/job_table_registry.hpp>

#include <algorithm>
#include <array>

#include "reports/job_table_results.hpp"

namespace tracesweep {

namespace {

using namespace tables;

job_table_output tb(job_session const& s, job_table_request const&) {
  auto const v = compute_tb_overview(s);
  return {{tb_flat(v), tb_gpus_flat(v), tb_kernels_flat(v)}, {tb_json(v)}};
}

job_table_output overview(job_session const& s, job_table_request const&) {
  auto const v = compute_overview(s);
  return {{overview_flat(v)}, {overview_json(v)}};
}

job_table_output model(job_session const& s, job_table_request const&) {
  auto const v = compute_model_summary(s);
  return {{model_flat(v)}, {model_json(v)}};
}

job_table_output distributed(job_session const& s, job_table_request const&) {
  auto const v = compute_distributed(s);
  return {{distributed_flat(v), across_ranks_table(v)}, {distributed_json(v)}};
}

job_table_output kernels(job_session const& s, job_table_request const&) {
  auto const v = compute_kernel_table(s.model(), s.primitives());
  return {{kernels_flat(v)}, {kernels_json(v)}};
}

job_table_output operators(job_session const& s, job_table_request const& r) {
  auto const v = compute_operator_table(s.model(), s.primitives(),
                                        r.sort.value_or(operator_sort::device_total));
  return {{operators_flat(v)}, {operators_json(v)}};
}

job_table_output operator_detail(job_session const& s, job_table_request const&) {
  return {{operator_detail_table(compute_operator_detail(s.model(), s.primitives()))}, {}};
}

job_table_output tb_operators(job_session const& s, job_table_request const& r) {
  auto const v =
      compute_tb_operators(s.model(), s.primitives(), r.sort.value_or(operator_sort::device_self));
  return {{tb_operators_flat(v)}, {tb_operators_json(v)}};
}

job_table_output device(job_session const& s, job_table_request const&) {
  auto const v = compute_device_summary(s);
  return {{device_flat(v), device_csv(v)}, {device_json(v)}};
}

job_table_output memcpy_summary(job_session const& s, job_table_request const&) {
  auto const v = compute_user_range_summary(s, user_range_table::memory_manipulation);
  return {{user_ranges_flat(
              "memcpy",
              "Memory Manipulation Summary (user ranges naming memcpy, memorycopy or memset)", v)},
          {user_ranges_json("memcpy", v)}};
}

job_table_output userdefined(job_session const& s, job_table_request const&) {
  auto const v = compute_user_range_summary(s, user_range_table::user_defined);
  return {{user_ranges_flat("userdefined", "UserDefined Summary", v)},
          {user_ranges_json("userdefined", v)}};
}

job_table_output perf(job_session const& s, job_table_request const&) {
  auto const v = compute_perf_summary(s);
  return {{perf_flat(v), perf_rows(v)}, {}};  // text in seconds; CSV and JSON one table in ns
}

job_table_output collectives(job_session const& s, job_table_request const&) {
  auto const m = match_collectives(s.model());
  return {{collectives_table(summarize_collectives(s.model(), m))},
          {},
          collective_notes("collectives", m)};
}

job_table_output collective_ranks(job_session const& s, job_table_request const&) {
  auto const m = match_collectives(s.model());
  return {{collective_ranks_table(m)}, {}, collective_notes("collective_ranks", m)};
}

/// The memory tables serve every view: text, CSV, HTML and JSON.
job_table_output memory(job_session const& s, job_table_request const&) {
  return {memory_results(compute_memory_tables(s.model())), {}};
}

constexpr std::array<std::string_view, 1> tb_also = {"tb_kernels"};
constexpr std::array<std::string_view, 3> memory_also = {"memory_ops", "memory_steps",
                                                         "memory_timeline"};

constexpr auto tensorboard = job_view::tensorboard;
constexpr auto paddle = job_view::paddle;

constexpr std::array entries{
    job_table_entry{"tb", tensorboard, true, tb_also, true, {}, tb},
    job_table_entry{"overview", paddle, true, {}, true, {}, overview},
    job_table_entry{"model", paddle, true, {}, true, {}, model},
    job_table_entry{"distributed", paddle, true, {}, true, {}, distributed},
    job_table_entry{"kernels", paddle, true, {}, true, {}, kernels},
    job_table_entry{"operators", paddle, false, {}, true, {}, operators},
    job_table_entry{"operator_detail", paddle, false, {}, false, {}, operator_detail},
    job_table_entry{"operators", tensorboard, false, {}, true, "tb_operators", tb_operators},
    job_table_entry{"device", paddle, false, {}, true, {}, device},
    job_table_entry{"memcpy", paddle, false, {}, true, {}, memcpy_summary},
    job_table_entry{"userdefined", paddle, false, {}, true, {}, userdefined},
    job_table_entry{"perf", paddle, false, {}, true, {}, perf},
    job_table_entry{"memory", paddle, false, memory_also, true, {}, memory},
    job_table_entry{"collectives", paddle, false, {}, true, {}, collectives},
    job_table_entry{"collective_ranks", paddle, false, {}, true, {}, collective_ranks},
};

}  // namespace

std::span<job_table_entry const> job_table_entries() {
  return entries;
}

job_table_entry const* find_job_table(std::string_view name, job_view view) {
  for (auto const& e : entries) {
    if (e.view != view || !e.selectable) continue;
    if (e.name == name || std::find(e.also.begin(), e.also.end(), name) != e.also.end()) return &e;
  }
  return nullptr;
}

std::vector<job_table_entry const*> select_job_tables(std::string_view name, job_view view) {
  std::vector<job_table_entry const*> out;
  if (name == "all") {
    for (auto const& e : entries)
      if (e.view == view && e.in_all) out.push_back(&e);
  } else if (auto const* e = find_job_table(name, view)) {
    out.push_back(e);
  }
  return out;
}

output::result_set job_table_results(std::span<job_table_entry const* const> selected,
                                     job_session const& session, job_table_request const& request) {
  output::result_set set;
  std::vector<output::result_table> json;
  for (auto const& e : entries) {
    if (std::find(selected.begin(), selected.end(), &e) == selected.end()) continue;
    auto out = e.compute(session, request);
    for (auto& t : out.grids) set.tables.push_back(std::move(t));
    for (auto& t : out.json) json.push_back(std::move(t));
    for (auto& n : out.notes) set.notes.push_back(std::move(n));
  }
  for (auto& t : json) set.tables.push_back(std::move(t));
  return set;
}

}  // namespace tracesweep
