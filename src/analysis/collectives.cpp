// SPDX-License-Identifier: Apache-2.0
// Collectives matched across ranks (collectives.hpp): NCCL kernels by order on each GPU.
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include <tracesweep/exact_stats.hpp>

namespace tracesweep {

std::string_view collective_kind_name(collective_kind k) noexcept {
  switch (k) {
    case collective_kind::all_reduce:
      return "all_reduce";
    case collective_kind::all_gather:
      return "all_gather";
    case collective_kind::reduce_scatter:
      return "reduce_scatter";
    case collective_kind::broadcast:
      return "broadcast";
    case collective_kind::reduce:
      return "reduce";
    case collective_kind::all_to_all:
      return "all_to_all";
    case collective_kind::send_recv:
      return "send_recv";
    case collective_kind::other:
      break;
  }
  return "other";
}

std::optional<collective_kind> collective_kind_of(std::string_view name) {
  if (!name.starts_with("nccl")) return std::nullopt;
  auto const kernel = name.find("Kernel_");
  if (kernel == std::string_view::npos ||
      name.substr(0, kernel).find('(') != std::string_view::npos)
    return std::nullopt;
  // The operation follows "Kernel_"; the first word that names one decides (ReduceScatter and
  // AllReduce before Reduce).
  auto const op = name.substr(kernel + 7);
  using enum collective_kind;
  static constexpr std::array<std::pair<std::string_view, collective_kind>, 10> words{{
      {"AllReduce", all_reduce},
      {"AllGather", all_gather},
      {"ReduceScatter", reduce_scatter},
      {"Broadcast", broadcast},
      {"AllToAll", all_to_all},
      {"Alltoall", all_to_all},
      {"SendRecv", send_recv},
      {"Send", send_recv},
      {"Recv", send_recv},
      {"Reduce", reduce},
  }};
  for (auto const& [word, kind] : words)
    if (op.starts_with(word)) return kind;
  return other;
}

namespace {

/// Each GPU's NCCL kernel rows by (start, row); index = dense device id.
std::vector<std::vector<std::size_t>> nccl_rows_by_device(trace_model const& model) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::vector<std::int8_t> nccl(t.strings().size(), -1);  // per name id: -1 not yet known
  std::vector<std::vector<std::size_t>> rows(model.devices().size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || groups[i] == no_device) continue;
    auto& known = nccl[t.name[i]];
    if (known < 0) known = collective_kind_of(t.strings().at(t.name[i])) ? 1 : 0;
    if (known) rows[groups[i]].push_back(i);
  }
  for (auto& r : rows)
    std::stable_sort(r.begin(), r.end(),
                     [&](std::size_t a, std::size_t b) { return t.start_ns[a] < t.start_ns[b]; });
  return rows;
}

}  // namespace

collective_matching match_collectives(trace_model const& model) {
  auto const& t = model.table();
  auto const devices = model.devices();
  auto const rows = nccl_rows_by_device(model);
  collective_matching out;
  std::map<std::int32_t, rank_collectives> ranks;
  std::vector<std::size_t> members;  // devices with NCCL kernels
  for (std::size_t g = 0; g < rows.size(); ++g) {
    if (rows[g].empty()) continue;
    members.push_back(g);
    auto& r = ranks[devices[g].rank];
    r.rank = devices[g].rank;
    r.collectives += static_cast<std::int64_t>(rows[g].size());
  }
  out.participants = members.size();
  if (out.across_ranks()) {
    std::size_t n = rows[members.front()].size();
    for (auto g : members) n = std::min(n, rows[g].size());
    for (auto g : members) out.unmatched += rows[g].size() - n;
    out.instances = n;
    for (std::size_t k = 0; k < n; ++k) {
      std::int64_t last = t.start_ns[rows[members.front()][k]];
      for (auto g : members) last = std::max(last, t.start_ns[rows[g][k]]);
      std::size_t at_last = 0, last_member = 0;
      for (auto g : members) {
        auto const row = rows[g][k];
        auto const duration = t.end_ns[row] - t.start_ns[row];
        auto const wait = std::min(last - t.start_ns[row], duration);
        auto& r = ranks[devices[g].rank];
        ++r.matched;
        r.wait_ns = checked_add(r.wait_ns, wait, "a rank's collective wait");
        r.transfer_ns = checked_add(r.transfer_ns, duration - wait, "a rank's collective transfer");
        if (t.start_ns[row] == last) ++at_last, last_member = g;
      }
      if (at_last == 1) ++ranks[devices[last_member].rank].last_arrivals;
    }
  }
  for (auto& [rank, r] : ranks) out.ranks.push_back(r);
  return out;
}

}  // namespace tracesweep
