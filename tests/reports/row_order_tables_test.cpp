// SPDX-License-Identifier: Apache-2.0
// Overview and distributed tables of nsys-like jobs whose rows come in start order (as an nsys
// export's tables do: devices, streams and threads interleaved), which take their unions from a
// group column over the rows (backend::union_of_row_groups), and of the same rows shuffled, which
// list them by lane: both against a brute-force oracle (sort, merge, add), on 1 to 3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/reports/paddle/distributed.hpp>
#include <tracesweep/reports/paddle/overview.hpp>
#include <tracesweep/session/job_session.hpp>

#include "support/counting_backend.hpp"
#include "support/span_oracle.hpp"
#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace row_order_tables_test {

using ivl = ts::test::span_ns;
using ts::test::length;
using ts::test::merged;
using ts::test::overlap;

/// One row of a generated input.
struct row {
  event_kind kind;
  std::int64_t start, end;
  std::int32_t device;  // -1: a host row
  std::int64_t stream;  // or thread
  std::string name;
};

/// A rank's rows: kernels (a quarter NCCL) and copies on 2 devices × 3 streams, each stream's
/// back to back or overlapping the next; CUDA API calls and NVTX ranges on 2 threads; some empty.
std::vector<row> rank_rows(std::mt19937_64& rng) {
  std::vector<row> out;
  for (std::int32_t d = 0; d < 2; ++d)
    for (std::int64_t s = 0; s < 3; ++s) {
      std::int64_t t = static_cast<std::int64_t>(rng() % 100);
      for (int k = 0; k < 60; ++k) {
        auto const len = rng() % 8 == 0 ? 0 : static_cast<std::int64_t>(rng() % 90);
        bool const copy = rng() % 6 == 0;
        std::string const name = rng() % 4 == 0 ? "ncclDevKernel_AllReduce_Sum" : "gemm";
        out.push_back({copy ? event_kind::memcpy : event_kind::kernel, t, t + len, d, 7 + s,
                       copy ? "copy" : name});
        t += static_cast<std::int64_t>(rng() % 70);
      }
    }
  for (std::int64_t thread = 1; thread <= 2; ++thread) {
    std::int64_t t = static_cast<std::int64_t>(rng() % 50);
    for (int k = 0; k < 80; ++k) {
      auto const len = rng() % 10 == 0 ? 0 : static_cast<std::int64_t>(rng() % 40);
      out.push_back({event_kind::api_call, t, t + len, -1, thread, "cudaLaunchKernel"});
      t += static_cast<std::int64_t>(rng() % 45);
    }
    out.push_back({event_kind::user_range, 0, t, -1, thread, "step"});
  }
  return out;
}

std::string nsys_label(event_kind k) {
  switch (k) {
    case event_kind::kernel:
      return "Kernel";
    case event_kind::memcpy:
      return "Memcpy";
    case event_kind::api_call:
      return "CUDA API";
    default:
      return "NVTX";
  }
}

struct job {
  ts::event_table table;
  /// Oracle inputs per rank: intervals by (device side, label); communication and computation.
  std::map<std::tuple<std::int32_t, bool, std::string>, std::vector<ivl>> by_type;
  std::map<std::int32_t, std::vector<ivl>> comm, comp;
};

/// `ranks` inputs of generated rows, each input's rows in start order or shuffled.
job make_job(std::uint64_t seed, int ranks, bool in_start_order) {
  std::mt19937_64 rng(seed);
  ts::test::table_builder b;
  job j;
  std::int64_t correlation = 1;  // a correlation id each: no row duplicates another
  for (std::int32_t r = 0; r < ranks; ++r) {
    auto rows = rank_rows(rng);
    if (in_start_order)
      std::stable_sort(rows.begin(), rows.end(),
                       [](row const& a, row const& c) { return a.start < c.start; });
    else
      std::shuffle(rows.begin(), rows.end(), rng);
    b.input("nsys-sqlite");
    for (auto const& x : rows) {
      if (x.device < 0)
        b.host(x.kind, x.start, x.end, x.stream, r, correlation++, x.name);
      else
        b.device(x.kind, x.start, x.end, x.device, x.stream, r, correlation++, x.name);
      j.by_type[{r, x.device >= 0, nsys_label(x.kind)}].push_back({x.start, x.end});
      if (x.kind == event_kind::kernel)
        (x.name.starts_with("nccl") ? j.comm : j.comp)[r].push_back({x.start, x.end});
    }
  }
  j.table = std::move(b.done());
  return j;
}

/// Overview's union rows and the distributed split of `j` against the oracle; how often the
/// analyses asked the backend for a union over a group column.
int check_job(job const& j, unsigned threads) {
  ts::test::counting_backend counted(threads);
  ts::trace_model const model(j.table);
  ts::job_session const session(model, counted, {});
  auto const ov = ts::compute_overview(session);
  auto const dist = ts::compute_distributed(session);
  EXPECT_EQ(ov.size(), j.comm.size());
  EXPECT_EQ(dist.ranks.size(), j.comm.size());
  for (std::size_t k = 0; k < ov.size() && k < dist.ranks.size(); ++k) {
    auto const r = ov[k].rank;
    std::size_t unions = 0;
    for (auto const& x : ov[k].rows) {
      if (x.rule != "union") continue;
      auto const& v = j.by_type.at({r, x.device, x.type});
      EXPECT_EQ(x.calls, static_cast<std::int64_t>(v.size())) << r << " " << x.type;
      EXPECT_EQ(x.time_ns, length(merged(v))) << r << " " << x.type;
      ++unions;
    }
    EXPECT_EQ(unions, 4u) << r;  // Kernel, Memcpy, CUDA API, NVTX
    auto const cm = merged(j.comm.at(r)), cp = merged(j.comp.at(r));
    EXPECT_EQ(dist.ranks[k].rank, r);
    EXPECT_EQ(dist.ranks[k].communication_ns, length(cm));
    EXPECT_EQ(dist.ranks[k].computation_ns, length(cp));
    EXPECT_EQ(dist.ranks[k].overlap_ns, overlap(cm, cp));
  }
  return counted.calls["union_of_row_groups"];
}

TEST(RowOrderTables, StartOrderedRowsTakeTheGroupColumnAndEqualTheOracle) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE(seed);
    auto const j = make_job(seed, 1 + static_cast<int>(seed % 3), true);
    // One union for the overview's types, one for the split.
    EXPECT_EQ(check_job(j, 1 + seed % 3), 2);
  }
}

TEST(RowOrderTables, ShuffledRowsAreListedByLaneAndEqualTheOracle) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE(seed);
    auto const j = make_job(seed, 1 + static_cast<int>(seed % 3), false);
    EXPECT_EQ(check_job(j, 1 + seed % 3), 0);
  }
}

}  // namespace row_order_tables_test
