// SPDX-License-Identifier: Apache-2.0
// The unions the job tables read besides the device activity: each rank's steps, kernels per GPU
// (kept rows by rank and device, all rows by input and device), each rank's data-loader ranges;
// one backend union each, and the denominators from the steps.
#include <algorithm>
#include <optional>

#include <tracesweep/recent_keys.hpp>

#include "session/session_parts.hpp"

namespace tracesweep::session_detail {

namespace {

/// The GPU of a kept kernel row as its rank index and device, else nothing.
std::optional<table_device> kept_kernel_device(trace_model const& model, std::size_t i) {
  auto const& t = model.table();
  if (t.kind[i] != event_kind::kernel || !model.kept(i)) return std::nullopt;
  return table_device{model.rank_index(t.rank[i]), t.device[i]};
}

/// The GPU of a kernel row (kept or not) as its input and device, else nothing.
std::optional<table_device> kernel_input_device(trace_model const& model, std::size_t i) {
  auto const& t = model.table();
  if (t.kind[i] != event_kind::kernel || t.device[i] < 0) return std::nullopt;
  return table_device{static_cast<std::size_t>(t.input_of(i)), t.device[i]};
}

using device_of_row = std::optional<table_device> (*)(trace_model const&, std::size_t);

/// The bits of a GPU's key, for the memo of GPUs seen lately.
struct table_device_bits {
  std::uint64_t operator()(table_device const& d) const noexcept {
    return static_cast<std::uint64_t>(d.owner) << 32 ^ static_cast<std::uint32_t>(d.device);
  }
};
/// A memo of GPUs seen lately: rows of a few GPUs come in runs (Kineto) or interleaved (nsys
/// tables in start order).
template <class Value>
using recent_devices = recent_keys<table_device, Value, table_device_bits>;

/// Sorted distinct GPUs of the model's rows; a GPU the memo knows is not looked up.
std::vector<table_device> distinct_devices(trace_model const& model, device_of_row device_of) {
  return distinct_keys<table_device, table_device_bits>(
      0, model.table().size(), 1, [&](std::size_t i) { return device_of(model, i); });
}

/// Row → the index of its GPU among `devices` (no_device for none), for rows asked in any order;
/// a GPU the memo knows is not searched: nothing is kept per row.
class device_groups {
 public:
  device_groups(trace_model const& model, std::span<table_device const> devices,
                device_of_row device_of)
      : _model(model), _devices(devices), _device_of(device_of) {}
  group_id operator()(std::size_t i) {
    auto const k = _device_of(_model, i);
    if (!k) return no_device;
    if (auto const* known = _recent.find(*k)) return *known;
    auto const g = static_cast<group_id>(std::lower_bound(_devices.begin(), _devices.end(), *k) -
                                         _devices.begin());
    _recent.put(*k, g);
    return g;
  }

 private:
  trace_model const& _model;
  std::span<table_device const> _devices;
  device_of_row _device_of;
  recent_devices<group_id> _recent;
};

/// Rows of `t` selected by `take` (row → group, or no_device) as intervals, by one backend
/// union_of_rows over the held start and end columns.
template <typename Take>
interval_union union_of_taken_rows(job_session const& session, Take&& take) {
  auto const& t = session.model().table();
  std::vector<std::size_t> rows;
  std::vector<group_id> g;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto const group = take(i);
    if (group == no_device) continue;
    rows.push_back(i), g.push_back(group);
  }
  return session.primitives().union_of_rows({t.start_ns, t.end_ns, rows, g});
}

}  // namespace

table_devices group_table_devices(trace_model const& model) {
  return {distinct_devices(model, kept_kernel_device),
          distinct_devices(model, kernel_input_device)};
}

interval_union compute_table_union(job_session const& session, table_union which) {
  auto const& model = session.model();
  auto const& t = model.table();
  switch (which) {
    case table_union::steps_by_rank: {  // a few rows: listed rank by rank, no pass over the table
      std::vector<std::size_t> rows;
      std::vector<group_id> rank_of;
      for (std::size_t r = 0; r < model.ranks().size(); ++r)
        for (auto i : model.steps(r))
          rows.push_back(i), rank_of.push_back(static_cast<group_id>(r));
      return session.primitives().union_of_rows({t.start_ns, t.end_ns, rows, rank_of});
    }
    case table_union::kept_kernels_by_rank_device: {
      return union_of_taken_rows(session,
                                 device_groups(model, session.rank_devices(), kept_kernel_device));
    }
    case table_union::kernels_by_input_device: {
      return union_of_taken_rows(
          session, device_groups(model, session.input_devices(), kernel_input_device));
    }
    case table_union::data_loaders_by_rank:
      return union_of_taken_rows(session, [&](std::size_t i) {
        return t.kind[i] == event_kind::data_loader && t.device[i] < 0
                   ? static_cast<group_id>(model.rank_index(t.rank[i]))
                   : no_device;
      });
  }
  return {};
}

std::vector<denominator> compute_denominators(job_session const& session) {
  auto const& model = session.model();
  auto const busy =
      busy_per_group(session.unions(table_union::steps_by_rank), model.ranks().size());
  std::vector<denominator> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    out[r].from_steps = !model.steps(r).empty();
    out[r].total_ns = out[r].from_steps ? busy[r] : model.rank_span(r);
  }
  return out;
}

}  // namespace tracesweep::session_detail
