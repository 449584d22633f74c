// SPDX-License-Identifier: Apache-2.0
// diff's rank pairing: see rank_pairing.hpp.
#include "fleet/rank_pairing.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tracesweep::fleet {

namespace {

std::vector<std::int32_t> ranks_of(job_record const& j) {
  std::set<std::int32_t> ranks;
  for (auto const& d : j.devices) ranks.insert(d.rank);
  for (auto const& k : j.kernels) ranks.insert(k.rank);
  for (auto const& r : j.rank_steps) ranks.insert(r.rank);
  return {ranks.begin(), ranks.end()};
}

/// "3, 5" of at most eight ranks, then "…".
std::string list_of(std::vector<std::int32_t> const& ranks) {
  std::vector<std::int32_t> const shown(ranks.begin(),
                                        ranks.begin() + std::min<std::size_t>(8, ranks.size()));
  return fmt::format("{}{}", fmt::join(shown, ", "), ranks.size() > shown.size() ? ", …" : "");
}

/// Every rank of `j` through `to`.
void renumber(job_record& j, std::map<std::int32_t, std::int32_t> const& to) {
  auto const map = [&](std::int32_t& rank) { rank = to.at(rank); };
  for (auto& d : j.devices) map(d.rank);
  for (auto& k : j.kernels) map(k.rank);
  for (auto& r : j.rank_steps) map(r.rank);
  for (auto& g : j.gaps)
    if (to.contains(g.rank)) map(g.rank);
  for (auto& f : j.findings)
    if (to.contains(f.rank)) map(f.rank);
}

}  // namespace

job_record pair_ranks(job_record const& before, job_record const& after, rank_pairing how,
                      std::string& note) {
  note.clear();
  auto const a = ranks_of(before), b = ranks_of(after);
  if (a == b || a.empty() || b.empty()) return after;
  if (how == rank_pairing::number) {
    note = fmt::format(
        "ranks paired by number (before: {}; after: {}); --pair-ranks order pairs them by order",
        list_of(a), list_of(b));
    return after;
  }
  std::map<std::int32_t, std::int32_t> to;
  std::vector<std::string> pairs;
  for (std::size_t i = 0; i < b.size(); ++i) {
    to[b[i]] = i < a.size() ? a[i] : a.back() + static_cast<std::int32_t>(i - a.size() + 1);
    if (i < a.size() && pairs.size() < 8) pairs.push_back(fmt::format("{}={}", a[i], b[i]));
  }
  auto const paired = std::min(a.size(), b.size());
  note = fmt::format(
      "ranks paired by order, before=after: {}{}{} (their numbers differ; --pair-ranks number "
      "pairs equal numbers)",
      fmt::join(pairs, ", "), paired > pairs.size() ? ", …" : "",
      a.size() == b.size() ? ""
                           : fmt::format("; before has {} ranks, after {}", a.size(), b.size()));
  auto out = after;
  renumber(out, to);
  return out;
}

}  // namespace tracesweep::fleet
