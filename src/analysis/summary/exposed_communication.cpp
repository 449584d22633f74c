// SPDX-License-Identifier: Apache-2.0
// Exposed communication split into wait and transfer: the wait part [start, start + wait) and
// the transfer part [start + wait, end) of each matched NCCL kernel, each united per device by
// the backend, less their intersection with the device's computation union (the session's
// activity's where it kept it, else one union of the computation kernels' rows that meet them).
#include "analysis/summary/exposed_communication.hpp"

#include <algorithm>

#include <tracesweep/analysis/collectives.hpp>
#include <tracesweep/stream_lanes.hpp>
#include <tracesweep/uninitialized_vector.hpp>

namespace tracesweep::summary_detail {

namespace {

/// The first member of `members` (disjoint, by start: ends ascend too) that ends after `t`,
/// or its size: tried first at `hint` and the member after it (the answer for the row before
/// on the same device; a device's rows come nearly by start, and its members are few beside
/// its kernels), else by binary search.
std::size_t first_ending_after(union_members const& members, std::int64_t t, std::size_t hint) {
  auto const& ends = members.end;
  auto const answers = [&](std::size_t k) {
    return k <= ends.size() && (k == ends.size() || ends[k] > t) && (k == 0 || ends[k - 1] <= t);
  };
  if (answers(hint)) return hint;
  if (answers(hint + 1)) return hint + 1;
  return static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), t) - ends.begin());
}

/// Whether [start, end) meets a member of `members`; `hint` as first_ending_after takes it,
/// updated.
bool meets(union_members const& members, std::int64_t start, std::int64_t end, std::size_t& hint) {
  hint = first_ending_after(members, start, hint);
  return hint != members.size() && members.start[hint] < end;
}

/// The computation kernels' union per device (kernels on a GPU that are not communication), as
/// far as intersections with `near` (a union by device) see it: one union of the rows of
/// computation kernels that meet `near` on their device. A row that meets no member of `near` adds
/// nothing to an intersection with it, and leaving those out spares sorting every kernel of a long
/// run for the few that meet its collectives.
interval_union computation_union(job_session const& session, interval_union const& near) {
  auto const& model = session.model();
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::vector<union_members> near_of;
  for (std::size_t g = 0; g < model.devices().size(); ++g)
    near_of.push_back(members_of(near, static_cast<group_id>(g)));
  std::vector<std::size_t> hint(near_of.size(), 0);
  auto const communication = model.communication_names();
  // Each taken row's device in a column over the rows: where each device's rows come in start
  // order (an nsys export), the union takes that column as it is. Else the rows are listed by
  // (device, stream) for the union, which then merges each stream's rows (in start order)
  // instead of sorting them.
  uninitialized_vector<group_id> device_of(t.size());
  start_order order(near_of.size());
  std::size_t taken = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    device_of[i] = row_groups::no_group;
    if (groups[i] == no_device || t.kind[i] != event_kind::kernel) continue;
    if (names_communication(communication, t.name[i])) continue;
    if (!meets(near_of[groups[i]], t.start_ns[i], t.end_ns[i], hint[groups[i]])) continue;
    device_of[i] = groups[i], ++taken;
    order.add(groups[i], t.start_ns[i]);
  }
  auto& be = session.primitives();
  if (order.holds())
    return be.union_of_row_groups({t.start_ns, t.end_ns, device_of, near_of.size()});
  stream_lanes lanes(near_of.size());
  std::vector<std::size_t> rows;
  std::vector<group_id> run;
  rows.reserve(taken), run.reserve(taken);
  for (std::size_t i = 0; i < t.size(); ++i)
    if (device_of[i] != row_groups::no_group)
      rows.push_back(i), run.push_back(lanes.run(device_of[i], t.stream[i]));
  // No start column: these rows' devices were just found out of start order, so list_by_run's
  // listing by device alone could not apply.
  auto const listed = list_by_run(rows, run, groups_of_runs(near_of.size()));
  return be.union_of_rows({t.start_ns, t.end_ns, listed.rows, listed.group});
}

/// Σ member lengths per group.
std::vector<std::int64_t> lengths(interval_union const& u, std::size_t groups) {
  std::vector<std::int64_t> out(groups, 0);
  for (std::size_t i = 0; i < u.size(); ++i) out[u.group[i]] += u.end[i] - u.start[i];
  return out;
}

}  // namespace

std::vector<exposed_split> split_exposed_communication(job_session const& session,
                                                       collective_matching const& matching,
                                                       interval_union const* computation) {
  if (!matching.across_ranks()) return {};
  auto const& model = session.model();
  auto const& t = model.table();
  auto const groups = model.device_group();
  struct parts {
    std::vector<std::int64_t> start, end;
    std::vector<group_id> group;
    void add(std::int64_t s, std::int64_t e, group_id g) {
      start.push_back(s), end.push_back(e), group.push_back(g);
    }
  } wait, transfer;
  for (auto const& k : matching.kernels) {
    auto const split = t.start_ns[k.row] + k.wait_ns;
    wait.add(t.start_ns[k.row], split, groups[k.row]);
    transfer.add(split, t.end_ns[k.row], groups[k.row]);
  }
  auto& be = session.primitives();
  auto const n = model.devices().size();
  std::vector<exposed_split> out(n);
  auto const w = be.union_by_group({wait.start, wait.end, wait.group});
  auto const x = be.union_by_group({transfer.start, transfer.end, transfer.group});
  interval_union own;
  if (computation == nullptr) own = computation_union(session, merge_unions(w, x));
  auto const& c = computation != nullptr ? *computation : own;
  auto const w_total = lengths(w, n), x_total = lengths(x, n);
  auto const w_hidden = be.intersection_by_group(w, c, n);
  auto const x_hidden = be.intersection_by_group(x, c, n);
  for (std::size_t g = 0; g < n; ++g) out[g] = {w_total[g] - w_hidden[g], x_total[g] - x_hidden[g]};
  return out;
}

}  // namespace tracesweep::summary_detail
