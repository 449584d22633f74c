// SPDX-License-Identifier: Apache-2.0
// Collectives matched across ranks (collectives.hpp): NCCL kernels by order on each GPU of each
// process group.
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <tracesweep/exact_stats.hpp>

#include "analysis/collectives/nccl_kernels.hpp"

namespace tracesweep {

namespace {

/// A participant: a process group (string id; npos = none recorded) and a GPU (dense id).
using participant = std::pair<string_id, group_id>;

/// Each participant's NCCL kernel rows by (start, row).
std::map<participant, std::vector<std::size_t>> nccl_rows(trace_model const& model) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::map<participant, std::vector<std::size_t>> rows;
  collectives_detail::for_each_nccl_kernel(model, [&](std::size_t i, collective_kind) {
    auto const* args = t.collectives.find(i);
    rows[{args ? args->process_group : string_pool::npos, groups[i]}].push_back(i);
  });
  for (auto& [who, r] : rows)
    std::stable_sort(r.begin(), r.end(),
                     [&](std::size_t a, std::size_t b) { return t.start_ns[a] < t.start_ns[b]; });
  return rows;
}

/// Matches the k-th kernels of `members` (one process group's participants) for every k both
/// have; adds each kernel's wait and transfer to `out` and its rank's sums to `ranks`.
void match_group(trace_model const& model, std::vector<std::vector<std::size_t> const*> const& of,
                 std::vector<group_id> const& members,
                 std::map<std::int32_t, rank_collectives>& ranks, collective_matching& out) {
  auto const& t = model.table();
  auto const devices = model.devices();
  std::size_t n = of.front()->size();
  for (auto const* r : of) n = std::min(n, r->size());
  for (auto const* r : of) out.unmatched += r->size() - n;
  out.instances += n;
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t last = t.start_ns[(*of.front())[k]];
    for (auto const* r : of) last = std::max(last, t.start_ns[(*r)[k]]);
    std::size_t at_last = 0, last_member = 0;
    std::int64_t first = last, waited = 0;
    for (std::size_t m = 0; m < of.size(); ++m) {
      auto const row = (*of[m])[k];
      out.members.push_back(
          {row, k == 0 ? std::numeric_limits<std::int64_t>::min() : t.end_ns[(*of[m])[k - 1]]});
      auto const duration = t.end_ns[row] - t.start_ns[row];
      auto const wait = std::min(last - t.start_ns[row], duration);
      auto& r = ranks[devices[members[m]].rank];
      ++r.matched;
      r.wait_ns = checked_add(r.wait_ns, wait, "a rank's collective wait");
      r.transfer_ns = checked_add(r.transfer_ns, duration - wait, "a rank's collective transfer");
      out.kernels.push_back({row, wait, duration - wait});
      waited = checked_add(waited, wait, "the wait at a collective");
      first = std::min(first, t.start_ns[row]);
      if (t.start_ns[row] == last) ++at_last, last_member = m;
    }
    out.instance_offsets.push_back(out.members.size());
    if (at_last != 1) continue;  // a tie: nobody alone held the others back
    // (the last arrival's own wait is 0: `waited` is the others')
    auto& r = ranks[devices[members[last_member]].rank];
    ++r.last_arrivals;
    r.wait_caused_ns = checked_add(r.wait_caused_ns, waited, "the wait a rank caused");
    out.late.push_back({(*of[last_member])[k], out.instance_offsets.size() - 2, first, waited});
  }
}

}  // namespace

collective_matching match_collectives(trace_model const& model) {
  auto const devices = model.devices();
  auto const rows = nccl_rows(model);
  collective_matching out;
  std::map<std::int32_t, rank_collectives> ranks;
  std::vector<bool> gpu_seen(devices.size(), false);
  for (auto const& [who, r] : rows) {
    auto& rank = ranks[devices[who.second].rank];
    rank.rank = devices[who.second].rank;
    rank.collectives += static_cast<std::int64_t>(r.size());
    out.participants += gpu_seen[who.second] ? 0 : 1;
    gpu_seen[who.second] = true;
  }
  for (auto at = rows.begin(); at != rows.end();) {  // one process group at a time
    std::vector<std::vector<std::size_t> const*> of;
    std::vector<group_id> members;
    auto const group = at->first.first;
    for (; at != rows.end() && at->first.first == group; ++at)
      of.push_back(&at->second), members.push_back(at->first.second);
    if (members.size() < 2) continue;
    out.across = true;
    match_group(model, of, members, ranks, out);
  }
  std::sort(out.kernels.begin(), out.kernels.end(),
            [](auto const& a, auto const& b) { return a.row < b.row; });
  std::sort(out.late.begin(), out.late.end(),
            [](auto const& a, auto const& b) { return a.row < b.row; });
  for (auto& [rank, r] : ranks) out.ranks.push_back(r);
  return out;
}

}  // namespace tracesweep
