// SPDX-License-Identifier: Apache-2.0
// The collectives tables, one table each for every format: collectives (per rank, kind, data
// type, size and process group: calls, time, bandwidths, wait and transfer) and collective_ranks
// (per rank: its collectives, their wait for the last arrival and their transfer after it, how
// often it arrived last). Waits, transfers and last arrivals are null where nothing was matched.
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
  add_time(t, "wait_caused_ns", integer, "Wait Caused (ms)");
  add_ratio(t, "wait_share", "Wait (%)");
  for (auto const& r : m.ranks) {
    cell wait, transfer, last, caused, share;
    if (m.across_ranks()) {
      wait = i64(r.wait_ns), transfer = i64(r.transfer_ns), last = i64(r.last_arrivals);
      caused = i64(r.wait_caused_ns);
      if (auto const total = r.wait_ns + r.transfer_ns; total > 0)
        share = static_cast<double>(r.wait_ns) / static_cast<double>(total);
    }
    t.add_row(
        {i64(r.rank), i64(r.collectives), i64(r.matched), wait, transfer, last, caused, share});
  }
  return t;
}

namespace {

cell optional_cell(std::optional<std::int64_t> v) {
  return v ? cell(*v) : cell();
}
cell optional_cell(std::optional<double> v) {
  return v ? cell(*v) : cell();
}

}  // namespace

result_table collectives_table(std::vector<collective_summary> const& rows) {
  auto t = ranked("collectives",
                  "Collectives (NCCL kernels by kind, data type, bytes per call and process group; "
                  "algbw = bytes × calls / time, busbw = algbw × nccl-tests' factor; wait and "
                  "transfer from matching across ranks)",
                  text_and_flat | output::json);
  t.add("kind", string, {}, "Kind");
  t.add("dtype", string, {}, "Type");
  t.add("bytes", integer, "bytes", "Bytes");
  t.add("process_group", string, {}, "Group");
  t.add("group_size", integer, {}, "n");
  t.add("calls", integer, {}, "Calls");
  add_time(t, "total_ns", integer, "Total (ms)");
  for (auto const* name : {"algbw_gbps", "busbw_gbps"}) {
    auto& c = t.add(name, real, "GB/s", name[0] == 'a' ? "algbw (GB/s)" : "busbw (GB/s)");
    c.decimals = 2;
  }
  add_time(t, "wait_ns", integer, "Wait (ms)");
  add_time(t, "transfer_ns", integer, "Transfer (ms)");
  t.add("busbw_transfer_gbps", real, "GB/s", "busbw xfer (GB/s)").decimals = 2;
  for (auto const& r : rows)
    t.add_row({i64(r.rank), std::string(collective_kind_name(r.kind)), r.dtype,
               optional_cell(r.bytes), r.process_group, i64(r.group_size), i64(r.calls),
               i64(r.total_ns), optional_cell(r.algbw_gbps), optional_cell(r.busbw_gbps),
               optional_cell(r.wait_ns), optional_cell(r.transfer_ns),
               optional_cell(r.busbw_transfer_gbps)});
  return t;
}

std::vector<std::string> collective_notes(std::string const& table, collective_matching const& m) {
  std::vector<std::string> notes;
  if (m.participants == 0)
    notes.push_back(table + ": no NCCL kernels in the job: the table is empty");
  else if (!m.across_ranks())
    notes.push_back(table + ": NCCL kernels on one GPU only: no waits or transfers to match");
  if (m.unmatched > 0)
    notes.push_back(fmt::format(
        "{}: the GPUs disagree on the number of collectives: {} matched by order, {} NCCL "
        "kernels left unmatched",
        table, m.instances, m.unmatched));
  return notes;
}

}  // namespace tracesweep::tables
