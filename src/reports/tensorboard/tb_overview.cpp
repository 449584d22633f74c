// SPDX-License-Identifier: Apache-2.0
// The TensorBoard plugin's overview, reproduced rule for rule, one input at a time: the rows
// typed, the role intervals (this file), the steps and their attribution (tb_steps.cpp), the GPU
// metrics and the kernel table (tb_gpus.cpp).
#include <tracesweep/reports/tensorboard/tb_overview.hpp>

#include <algorithm>
#include <array>

#include "reports/tensorboard/tb_parts.hpp"

namespace tracesweep {

namespace tables::tb {

namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool is_host_op(event_type t) {
  return t == event_type::op || t == event_type::python || t == event_type::user_annotation;
}

/// The plugin's NCCL host ops of one input by thread: whether a runtime call lies wholly inside
/// one of its thread's ops, by binary search (ops by start, each end the running maximum).
class nccl_ops_by_thread {
 public:
  void add(std::int64_t thread, span op) { _ops[thread].push_back(op); }
  [[nodiscard]] bool empty() const noexcept { return _ops.empty(); }

  void index() {
    for (auto& [thread, ops] : _ops) {
      std::sort(ops.begin(), ops.end(), [](span a, span b) { return a.start < b.start; });
      for (std::size_t k = 1; k < ops.size(); ++k)
        ops[k].end = std::max(ops[k].end, ops[k - 1].end);
    }
  }

  [[nodiscard]] bool contains(std::int64_t thread, span call) const {
    auto const it = _ops.find(thread);
    if (it == _ops.end()) return false;
    auto const& ops = it->second;
    auto const after = std::upper_bound(ops.begin(), ops.end(), call.start,
                                        [](std::int64_t s, span op) { return s < op.start; });
    return after != ops.begin() && std::prev(after)->end >= call.end;
  }

 private:
  std::unordered_map<std::int64_t, std::vector<span>> _ops;
};

/// The role of a host op, Python function or user annotation by the plugin's names.
tb_role host_role(trace_model const& model, event_type type, std::string_view name) {
  if (type != event_type::python &&
      ((starts_with(name, "enumerate(DataLoader)#") && ends_with(name, ".__next__")) ||
       starts_with(name, "enumerate(DataPipe)#")))
    return tb_role::data_loader;
  if (model.is_communication(name, communication_policy::tensorboard_nccl_ops) ||
      model.is_communication(name, communication_policy::tensorboard_gloo_ops))
    return tb_role::communication;
  return tb_role::cpu_exec;
}

/// Orders kernel statistics by group, against a group number either side.
struct group_less {
  bool operator()(kernel_name_stats const& a, std::uint32_t g) const { return a.group < g; }
  bool operator()(std::uint32_t g, kernel_name_stats const& a) const { return g < a.group; }
};

}  // namespace

event_type type_of(event_table const& t, std::size_t i) {
  switch (t.kind[i]) {
    case event_kind::kernel:
      return event_type::kernel;
    case event_kind::memcpy:
      return event_type::memcpy;
    case event_kind::memset:
      return event_type::memset;
    case event_kind::profiler_step:
      return event_type::step;
    default:
      break;
  }
  // By category_role: none, op, python, annotation, runtime, phase.
  constexpr std::array by_family{event_type::none,    event_type::op,
                                 event_type::python,  event_type::user_annotation,
                                 event_type::runtime, event_type::none};
  auto const family = static_cast<std::size_t>(t.role[i].family());
  return family < by_family.size() ? by_family[family] : event_type::none;
}

std::vector<std::size_t> input_rows::of_type(event_type t) const {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (type[k] == t) out.push_back(rows[k]);
  return out;
}

role_spans collect_roles(trace_model const& model, input_rows const& in) {
  auto const& table = model.table();
  auto const& pool = table.strings();
  // Communication ops: NCCL/Gloo-named host events; kernels launched inside an NCCL op.
  bool gloo = false;
  nccl_ops_by_thread nccl;
  for (std::size_t k = 0; k < in.rows.size(); ++k) {
    if (!is_host_op(in.type[k])) continue;
    auto const i = in.rows[k];
    auto const name = pool.at(table.name[i]);
    if (model.is_communication(name, communication_policy::tensorboard_nccl_ops))
      nccl.add(table.stream[i], {table.start_ns[i], table.end_ns[i]});
    gloo = gloo || model.is_communication(name, communication_policy::tensorboard_gloo_ops);
  }
  nccl.index();
  auto const launched_in_comm = [&](std::size_t i) {
    auto const a = model.launcher(i);
    if (a < 0) return false;
    auto const call = static_cast<std::size_t>(a);
    return nccl.contains(table.stream[call], {table.start_ns[call], table.end_ns[call]});
  };

  role_spans out;
  for (std::size_t k = 0; k < in.rows.size(); ++k) {
    auto const i = in.rows[k];
    span const sp{table.start_ns[i], table.end_ns[i]};
    switch (in.type[k]) {
      case event_type::kernel:
        out.of(launched_in_comm(i) ? tb_role::communication : tb_role::kernel).push_back(sp);
        break;
      case event_type::memcpy:
        out.of(tb_role::memcpy).push_back(sp);
        break;
      case event_type::memset:
        out.of(tb_role::memset).push_back(sp);
        break;
      case event_type::runtime:
        out.of(tb_role::runtime).push_back(sp);
        break;
      case event_type::op:
      case event_type::python:
      case event_type::user_annotation:
        out.of(host_role(model, in.type[k], pool.at(table.name[i]))).push_back(sp);
        break;
      case event_type::step:
      case event_type::none:
        break;
    }
    auto const t = in.type[k];
    if (t == event_type::op || t == event_type::python || t == event_type::step)
      out.cpu_min = std::min(out.cpu_min, sp.start), out.cpu_max = std::max(out.cpu_max, sp.end);
  }
  if (!nccl.empty() && gloo) out.of(tb_role::communication).clear();
  return out;
}

}  // namespace tables::tb

std::vector<tb_overview> compute_tb_overview(job_session const& session) {
  using namespace tables::tb;
  auto const& model = session.model();
  auto const& table = model.table();
  auto const metrics = index_launch_metrics(table);
  kernel_selection by_input;
  by_input.grouping = kernel_grouping::input;
  auto const kernel_stats = compute_kernel_stats(model, session.primitives(), by_input);

  std::vector<input_rows> inputs(table.inputs().size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    auto& in = inputs[static_cast<std::size_t>(table.input_of(i))];
    in.rows.push_back(i), in.type.push_back(type_of(table, i));
  }
  std::vector<tb_overview> out;
  for (std::size_t input = 0; input < inputs.size(); ++input) {
    auto const& in = inputs[input];
    if (in.rows.empty()) continue;
    tb_overview ov;
    ov.input = static_cast<std::int32_t>(input);
    ov.rank = table.rank[in.rows.front()];
    auto roles = collect_roles(model, in);
    ov.has_communication = !roles.of(tb_role::communication).empty();
    auto steps = host_steps(model, input);
    if (steps.spans.empty()) {
      if (roles.cpu_min > roles.cpu_max) continue;  // nothing on the host: no overview
      steps.spans.push_back({roles.cpu_min, roles.cpu_max});
      steps.names.emplace_back("0");
    }
    move_steps_to_device(model, in, steps);
    attribute_steps(session.primitives(), roles, steps, ov);
    auto const kernels = in.of_type(event_type::kernel);
    add_gpu_metrics(session, input, kernels, metrics,
                    {steps.spans.front().start, steps.spans.back().end}, ov);
    auto const [first, last] = std::equal_range(kernel_stats.begin(), kernel_stats.end(),
                                                static_cast<std::uint32_t>(input), group_less{});
    add_kernel_table(model, kernels, std::span(first, last), metrics, ov);
    out.push_back(std::move(ov));
  }
  return out;
}

}  // namespace tracesweep
