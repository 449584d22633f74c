// SPDX-License-Identifier: Apache-2.0
// The TensorBoard overview's parts, one input at a time: its rows typed by the plugin's event
// types, the role intervals, the steps moved onto the device timeline, the attribution of each
// step's time to roles, the GPU metrics and the kernel table.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <tracesweep/analysis/kernel_stats.hpp>
#include <tracesweep/reports/tensorboard/tb_overview.hpp>

namespace tracesweep::tables::tb {

/// The plugin's event types: from the kind, else from the family the reader saw in the category.
enum class event_type { none, op, python, user_annotation, runtime, kernel, memcpy, memset, step };
[[nodiscard]] event_type type_of(event_table const& t, std::size_t i);

struct span {
  std::int64_t start, end;
};

/// One input's rows, in table order, and their types.
struct input_rows {
  std::vector<std::size_t> rows;
  std::vector<event_type> type;
  /// The rows of type `t`, in table order.
  [[nodiscard]] std::vector<std::size_t> of_type(event_type t) const;
};

/// Intervals per role (every role but Other), and the extent of host ops, Python and steps.
struct role_spans {
  std::array<std::vector<span>, tb_role_count - 1> role;
  std::int64_t cpu_min = INT64_MAX, cpu_max = INT64_MIN;
  [[nodiscard]] std::vector<span>& of(tb_role r) { return role[static_cast<std::size_t>(r)]; }
};
[[nodiscard]] role_spans collect_roles(trace_model const& model, input_rows const& in);

/// The steps of an input, in time order, and their names (the N of ProfilerStep#N).
struct step_list {
  std::vector<span> spans;
  std::vector<std::string> names;
};
[[nodiscard]] step_list host_steps(trace_model const& model, std::size_t input);
/// The plugin's mapping of host steps onto the device: each step extends over the device work
/// its runtime calls launched, starts where the previous one ended; trailing steps whose
/// kernels were not all captured are dropped.
void move_steps_to_device(trace_model const& model, input_rows const& in, step_list& steps);
/// Each step's time by role priority, and the means over the steps.
void attribute_steps(backend& be, role_spans const& roles, step_list const& steps, tb_overview& ov);

/// Launch metrics (blocks per SM, occupancy) by row.
using launch_metric_index = std::unordered_map<std::uint64_t, std::size_t>;
[[nodiscard]] launch_metric_index index_launch_metrics(event_table const& t);

/// GPU Utilization, Est. SM Efficiency and Est. Achieved Occupancy of each GPU of input `input`
/// (its kernel rows `kernels`), over [first step start, last step end].
void add_gpu_metrics(job_session const& session, std::size_t input,
                     std::span<std::size_t const> kernels, launch_metric_index const& metrics,
                     span window, tb_overview& ov);
/// The kernel table of the input: every kernel by name, the two means weighted by duration.
void add_kernel_table(trace_model const& model, std::span<std::size_t const> kernels,
                      std::span<kernel_name_stats const> stats, launch_metric_index const& metrics,
                      tb_overview& ov);

}  // namespace tracesweep::tables::tb
