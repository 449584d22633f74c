// SPDX-License-Identifier: Apache-2.0
// The unions the job tables read besides the device activity: each rank's steps, kernels per GPU
// (kept rows by rank and device, all rows by input and device), each rank's data-loader ranges;
// one backend union each, and the denominators from the steps.
#include <algorithm>
#include <optional>
#include <set>

#include "session/session_parts.hpp"

namespace tracesweep::session_detail {

namespace {

/// Sorted distinct keys of the rows `key` gives one (std::nullopt: none), and each row's index
/// among them (no_device for the others). Keys come in long runs: each pass looks a key up once
/// per run.
template <typename Key>
void number_groups(std::size_t rows, Key const& key, std::vector<table_device>& keys,
                   std::vector<group_id>& group) {
  std::set<table_device> distinct;
  std::optional<table_device> last;
  for (std::size_t i = 0; i < rows; ++i)
    if (auto const k = key(i); k && k != last) distinct.insert(*k), last = k;
  keys.assign(distinct.begin(), distinct.end());
  group.assign(rows, no_device);
  last.reset();
  group_id last_group = no_device;
  for (std::size_t i = 0; i < rows; ++i) {
    auto const k = key(i);
    if (!k) continue;
    if (k != last)
      last = k, last_group = static_cast<group_id>(std::lower_bound(keys.begin(), keys.end(), *k) -
                                                   keys.begin());
    group[i] = last_group;
  }
}

/// Rows of `t` selected by `take` (row → group, or no_device) as intervals, by one backend
/// union_of_rows over the held start and end columns.
template <typename Take>
interval_union union_of_taken_rows(job_session const& session, Take const& take) {
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
  auto const& t = model.table();
  table_devices out;
  number_groups(
      t.size(),
      [&](std::size_t i) -> std::optional<table_device> {
        if (t.kind[i] != event_kind::kernel || !model.kept(i)) return std::nullopt;
        return table_device{model.rank_index(t.rank[i]), t.device[i]};
      },
      out.by_rank, out.rank_group);
  number_groups(
      t.size(),
      [&](std::size_t i) -> std::optional<table_device> {
        if (t.kind[i] != event_kind::kernel || t.device[i] < 0) return std::nullopt;
        return table_device{static_cast<std::size_t>(t.input_of(i)), t.device[i]};
      },
      out.by_input, out.input_group);
  return out;
}

interval_union compute_table_union(job_session const& session, table_devices const& devices,
                                   table_union which) {
  auto const& model = session.model();
  auto const& t = model.table();
  switch (which) {
    case table_union::steps_by_rank: {
      std::vector<group_id> rank_of(t.size(), no_device);
      for (std::size_t r = 0; r < model.ranks().size(); ++r)
        for (auto i : model.steps(r)) rank_of[i] = static_cast<group_id>(r);
      return union_of_taken_rows(session, [&](std::size_t i) { return rank_of[i]; });
    }
    case table_union::kept_kernels_by_rank_device: {
      return union_of_taken_rows(session, [&](std::size_t i) { return devices.rank_group[i]; });
    }
    case table_union::kernels_by_input_device: {
      return union_of_taken_rows(session, [&](std::size_t i) { return devices.input_group[i]; });
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
