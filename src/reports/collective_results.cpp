// SPDX-License-Identifier: Apache-2.0
// The collective_ranks table (overview --table collective_ranks): per rank its NCCL collectives,
// their wait for the last arrival and their transfer after it, and how often it arrived last. One
// table for every format; wait, transfer and last arrivals are null when the job has a single
// GPU with collectives (nothing to wait for).
#include "reports/job_table_results.hpp"

#include <fmt/format.h>

#include "reports/result_columns.hpp"

namespace tracesweep::tables {

using namespace result_columns;

result_table collective_ranks_table(collective_matching const& m) {
  auto t = ranked("collective_ranks",
                  fmt::format("Collectives per rank (NCCL kernels matched by order across {} "
                              "{}: {} instances; wait = last arrival − own start, transfer = "
                              "end − last arrival)",
                              m.participants, m.participants == 1 ? "GPU" : "GPUs", m.instances),
                  text_and_flat | output::json);
  t.add("collectives", integer, {}, "Collectives");
  t.add("matched", integer, {}, "Matched");
  add_time(t, "wait_ns", integer, "Wait (ms)");
  add_time(t, "transfer_ns", integer, "Transfer (ms)");
  t.add("last_arrivals", integer, {}, "Last Arrivals");
  add_ratio(t, "wait_share", "Wait (%)");
  for (auto const& r : m.ranks) {
    cell wait, transfer, last, share;
    if (m.across_ranks()) {
      wait = i64(r.wait_ns), transfer = i64(r.transfer_ns), last = i64(r.last_arrivals);
      if (auto const total = r.wait_ns + r.transfer_ns; total > 0)
        share = static_cast<double>(r.wait_ns) / static_cast<double>(total);
    }
    t.add_row({i64(r.rank), i64(r.collectives), i64(r.matched), wait, transfer, last, share});
  }
  return t;
}

std::vector<std::string> collective_notes(collective_matching const& m) {
  std::vector<std::string> notes;
  if (m.participants == 0)
    notes.emplace_back("collective_ranks: no NCCL kernels in the job: the table is empty");
  else if (!m.across_ranks())
    notes.emplace_back(
        "collective_ranks: NCCL kernels on one GPU only: no waits or transfers to match");
  if (m.unmatched > 0)
    notes.push_back(fmt::format(
        "collective_ranks: the GPUs disagree on the number of collectives: {} matched by order, "
        "{} NCCL kernels left unmatched",
        m.instances, m.unmatched));
  return notes;
}

}  // namespace tracesweep::tables
