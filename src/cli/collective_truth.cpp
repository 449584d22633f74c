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
  for (auto const* c : {"rank", "collectives", "wait_ns", "transfer_ns", "last_arrivals"})
    ranks.add(c, integer);
  for (auto const& k : truth.ranks)
    ranks.add_row({i64(k.rank), i64(k.collectives), i64(k.wait_ns), i64(k.transfer_ns),
                   i64(k.last_arrivals)});
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
