// SPDX-License-Identifier: Apache-2.0
// generate --plant collectives: its truth as tables (collective_truth.hpp).
#include "cli/collective_truth.hpp"

namespace tracesweep::cli {

output::result_set collective_truth_tables(collective_truth const& truth) {
  using enum output::value_type;
  auto i64 = [](std::int64_t v) { return output::cell{v}; };
  output::result_set r;
  auto& ranks = r.tables.emplace_back();
  ranks.name = "collective_ranks";
  for (auto const* c :
       {"rank", "collectives", "wait_ns", "transfer_ns", "last_arrivals", "wait_caused_ns"})
    ranks.add(c, integer);
  for (auto const& k : truth.ranks) {
    std::vector<output::cell> row;  // (one by one: GCC 12 warns on a braced list of six cells)
    for (auto v : {std::int64_t{k.rank}, k.collectives, k.wait_ns, k.transfer_ns, k.last_arrivals,
                   k.wait_caused_ns})
      row.emplace_back(v);
    ranks.add_row(std::move(row));
  }
  // What diagnose's late_arrivals must say: the ranks the others wait for.
  auto& late = r.tables.emplace_back();
  late.name = "late_arrivals";
  for (auto const* c : {"rank", "last_arrivals", "wait_caused_ns", "worst_wait_caused_ns"})
    late.add(c, integer);
  late.add("behind", string);
  late.add("behind_excess_ns", integer);
  for (auto const& k : truth.ranks) {
    if (k.last_arrivals == 0) continue;
    std::vector<output::cell> row;
    for (auto v : {std::int64_t{k.rank}, k.last_arrivals, k.wait_caused_ns, k.worst_wait_caused_ns})
      row.emplace_back(v);
    row.emplace_back(k.behind);
    row.emplace_back(k.behind_excess_ns);
    late.add_row(std::move(row));
  }
  auto& rows = r.tables.emplace_back();
  rows.name = "collectives";
  rows.add("rank", integer);
  rows.add("kind", string);
  rows.add("dtype", string);
  for (auto const* c : {"bytes", "group_size", "calls", "total_ns", "wait_ns", "transfer_ns"})
    rows.add(c, integer);
  for (auto const* c : {"algbw_gbps", "busbw_gbps", "busbw_transfer_gbps"}) rows.add(c, real);
  for (auto const& k : truth.rows)
    rows.add_row({i64(k.rank), k.kind, k.dtype, i64(k.bytes), i64(k.group_size), i64(k.calls),
                  i64(k.total_ns), i64(k.wait_ns), i64(k.transfer_ns), k.algbw_gbps, k.busbw_gbps,
                  k.busbw_transfer_gbps});
  return r;
}

}  // namespace tracesweep::cli
