// SPDX-License-Identifier: Apache-2.0
// Collectives matched across ranks: NCCL kernel kinds from names; waits, transfers and last
// arrivals on a hand-built job with a late rank; on real two-rank traces against a brute-force
// matching the test does itself (for nsys straight from the export with SQL); sizes and
// bandwidths of a Kineto trace against the test's own reading of its NCCL kernel args, and of an
// older one against its reading of the `nccl:*` / `c10d::*` records around each launch.
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/session/job_session.hpp>

#include "analysis/summary/exposed_communication.hpp"
#include "ingest/chrome/test_json.hpp"
#include "support/table_builder.hpp"
#include "support/trace_paths.hpp"

namespace collectives_test {

namespace ts = tracesweep;
using ts::collective_kind;

TEST(collectives, kinds_come_from_nccl_kernel_names) {
  auto kind = [](std::string_view n) { return ts::collective_kind_of(n); };
  EXPECT_EQ(kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), collective_kind::all_reduce);
  EXPECT_EQ(kind("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            collective_kind::all_reduce);
  EXPECT_EQ(kind("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, n"),
            collective_kind::broadcast);
  EXPECT_EQ(kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)"),
            collective_kind::send_recv);
  EXPECT_EQ(kind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, x)"),
            collective_kind::send_recv);
  EXPECT_EQ(kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), collective_kind::reduce_scatter);
  EXPECT_EQ(kind("ncclDevKernel_AllGather_RING_LL"), collective_kind::all_gather);
  EXPECT_EQ(kind("ncclDevKernel_Reduce_Sum_f32_RING_LL"), collective_kind::reduce);
  EXPECT_EQ(kind("ncclDevKernel_Generic_4"), collective_kind::other);
  EXPECT_EQ(kind("ampere_sgemm_128x64_nn"), std::nullopt);
  EXPECT_EQ(kind("nccl:all_reduce"), std::nullopt);  // the annotation, not a kernel
  EXPECT_EQ(kind("void at::foo<ncclKernel_AllReduce>(int)"), std::nullopt);
  EXPECT_EQ(ts::collective_kind_name(collective_kind::all_to_all), "all_to_all");
}

namespace {

constexpr auto kernel = ts::event_kind::kernel;
constexpr char const* all_reduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

ts::rank_collectives const& rank_of(ts::collective_matching const& m, std::int32_t rank) {
  auto const at =
      std::find_if(m.ranks.begin(), m.ranks.end(), [&](auto const& r) { return r.rank == rank; });
  if (at == m.ranks.end()) throw std::runtime_error("no such rank");
  return *at;
}

}  // namespace

TEST(collectives, a_late_rank_makes_the_others_wait) {
  ts::test::table_builder b;
  // Instance 0: rank 1 arrives 40 late; instance 1: rank 0 arrives 15 late; instance 2: a tie
  // (nobody is counted last). A compute kernel in between is no collective.
  b.input("nsys-sqlite");
  b.device(kernel, 100, 200, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 210, 230, 0, 8, 0, -1, "gemm");
  b.device(kernel, 315, 400, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 500, 560, 0, 7, 0, -1, all_reduce);
  b.input("nsys-sqlite");
  b.device(kernel, 140, 205, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 300, 401, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 500, 570, 0, 7, 1, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_EQ(m.participants, 2u);
  EXPECT_EQ(m.instances, 3u);
  EXPECT_EQ(m.unmatched, 0u);
  auto const& r0 = rank_of(m, 0);
  auto const& r1 = rank_of(m, 1);
  EXPECT_EQ(r0.collectives, 3);
  EXPECT_EQ(r0.wait_ns, 40 + 0 + 0);
  EXPECT_EQ(r0.transfer_ns, (200 - 140) + (400 - 315) + (560 - 500));
  EXPECT_EQ(r0.last_arrivals, 1);
  EXPECT_EQ(r1.wait_ns, 0 + 15 + 0);
  EXPECT_EQ(r1.transfer_ns, (205 - 140) + (401 - 315) + (570 - 500));
  EXPECT_EQ(r1.last_arrivals, 1);
  // What each late arrival cost the other: rank 1's 40 at instance 0, rank 0's 15 at instance 1.
  EXPECT_EQ(r1.wait_caused_ns, 40);
  EXPECT_EQ(r0.wait_caused_ns, 15);
  ASSERT_EQ(m.late.size(), 2u);
  EXPECT_EQ(m.late[0].row, 2u);  // rank 0's second all_reduce (row 2: rows ascend by input)
  EXPECT_EQ(m.late[0].first_arrival_ns, 300);
  EXPECT_EQ(m.late[0].wait_caused_ns, 15);
  EXPECT_EQ(m.late[1].row, 4u);  // rank 1's first
  EXPECT_EQ(m.late[1].first_arrival_ns, 100);
  EXPECT_EQ(m.late[1].wait_caused_ns, 40);
  // Instances in order, each participant with the end of its previous collective.
  ASSERT_EQ(m.instance_offsets.size(), 4u);
  ASSERT_EQ(m.members.size(), 6u);
  EXPECT_EQ(m.members[0].since_ns, INT64_MIN);
  EXPECT_EQ(m.members[2].row, 2u);
  EXPECT_EQ(m.members[2].since_ns, 200);
  EXPECT_EQ(m.members[3].since_ns, 205);
  EXPECT_EQ(m.late[0].instance, 1u);
}

TEST(collectives, counts_that_disagree_match_what_they_can_and_skew_is_clamped) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.device(kernel, 100, 110, 0, 7, 0, -1, all_reduce);  // ends before rank 1 starts (skew)
  b.device(kernel, 300, 350, 0, 7, 0, -1, all_reduce);
  b.device(kernel, 600, 650, 0, 7, 0, -1, all_reduce);  // rank 1 has no third
  b.input("nsys-sqlite");
  b.device(kernel, 150, 170, 0, 7, 1, -1, all_reduce);
  b.device(kernel, 300, 360, 0, 7, 1, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_EQ(m.instances, 2u);
  EXPECT_EQ(m.unmatched, 1u);
  auto const& r0 = rank_of(m, 0);
  EXPECT_EQ(r0.collectives, 3);
  EXPECT_EQ(r0.matched, 2);
  EXPECT_EQ(r0.wait_ns, 10);  // its whole duration, not 50
  EXPECT_EQ(r0.transfer_ns, 0 + 50);
  EXPECT_EQ(r0.last_arrivals, 0);
  EXPECT_EQ(rank_of(m, 1).last_arrivals, 1);
}

TEST(collectives, one_gpu_has_nothing_to_match) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.device(kernel, 100, 110, 0, 7, 0, -1, all_reduce);
  ts::trace_model const model(b.done());
  auto const m = ts::match_collectives(model);
  EXPECT_FALSE(m.across_ranks());
  EXPECT_EQ(m.instances, 0u);
  ASSERT_EQ(m.ranks.size(), 1u);
  EXPECT_EQ(m.ranks[0].collectives, 1);
}

namespace {

/// A brute-force matching: per rank, its NCCL kernels (start, end) by start; the k-th of each
/// rank is one instance.
using kernels_by_rank = std::map<std::int32_t, std::vector<std::pair<std::int64_t, std::int64_t>>>;

struct expected {
  std::int64_t wait = 0, transfer = 0, last = 0, collectives = 0, caused = 0;
};

std::map<std::int32_t, expected> brute_force(kernels_by_rank const& k) {
  std::map<std::int32_t, expected> out;
  std::size_t n = SIZE_MAX;
  for (auto const& [rank, v] : k) n = std::min(n, v.size()), out[rank].collectives = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t last = INT64_MIN;
    for (auto const& [rank, v] : k) last = std::max(last, v[i].first);
    int at_last = 0;
    std::int32_t last_rank = -1;
    std::int64_t waited = 0;
    for (auto const& [rank, v] : k) {
      auto const [s, e] = v[i];
      auto const wait = std::min(last - s, e - s);
      out[rank].wait += wait;
      out[rank].transfer += e - s - wait;
      waited += wait;
      if (s == last) ++at_last, last_rank = rank;
    }
    if (at_last == 1) ++out[last_rank].last, out[last_rank].caused += waited;
  }
  return out;
}

void expect_matching(ts::collective_matching const& m, kernels_by_rank const& k) {
  auto const want = brute_force(k);
  ASSERT_EQ(m.ranks.size(), want.size());
  ASSERT_GE(want.size(), 2u);
  for (auto const& r : m.ranks) {
    SCOPED_TRACE("rank " + std::to_string(r.rank));
    auto const& w = want.at(r.rank);
    EXPECT_EQ(r.collectives, w.collectives);
    EXPECT_EQ(r.wait_ns, w.wait);
    EXPECT_EQ(r.transfer_ns, w.transfer);
    EXPECT_EQ(r.last_arrivals, w.last);
    EXPECT_EQ(r.wait_caused_ns, w.caused);
  }
  EXPECT_GT(m.instances, 0u);
}

/// diagnose's late_arrivals against the same brute force: every rank that was ever alone last,
/// most wait caused first.
void expect_late_arrivals(ts::event_table const& t, kernels_by_rank const& k) {
  ts::trace_model const model(t);
  auto be = ts::make_cpu_backend(2);
  auto const d = ts::diagnose(model, *be, {});
  auto const want = brute_force(k);
  std::size_t late_ranks = 0;
  for (auto const& [rank, w] : want) late_ranks += w.last > 0 ? 1 : 0;
  ASSERT_EQ(d.late_arrivals.size(), late_ranks);
  for (std::size_t i = 0; i < d.late_arrivals.size(); ++i) {
    auto const& l = d.late_arrivals[i];
    SCOPED_TRACE("rank " + std::to_string(l.rank));
    EXPECT_EQ(l.last_arrivals, want.at(l.rank).last);
    EXPECT_EQ(l.wait_caused_ns, want.at(l.rank).caused);
    EXPECT_LE(l.worst_wait_caused_ns, l.wait_caused_ns);
    EXPECT_LT(l.first_arrival_ns, l.arrival_ns);
    if (i > 0) {
      EXPECT_LE(l.wait_caused_ns, d.late_arrivals[i - 1].wait_caused_ns);
    }
  }
}

/// The summary's exposed wait and transfer per GPU on one and two threads (from the computation
/// union the activity kept), and the split's own union of the computation kernels that meet the
/// collectives (what it builds where a backend keeps none), equal those of a session that keeps
/// every union (the unions diagnose keeps).
void expect_exposed_split_as_from_the_whole_computation_union(ts::trace_model const& model) {
  auto be = ts::make_cpu_backend(2);
  auto needs = ts::summary_needs({});
  needs.unions = true;
  auto const whole = ts::compute_summary(ts::job_session(model, *be, needs), {});
  for (unsigned threads : {1u, 2u}) {
    auto const usual = ts::compute_summary(model, *ts::make_cpu_backend(threads), {});
    ASSERT_EQ(usual.devices.size(), whole.devices.size());
    auto threaded = ts::make_cpu_backend(threads);
    ts::job_session const session(model, *threaded, ts::summary_needs({}));
    auto const own = ts::summary_detail::split_exposed_communication(
        session, ts::match_collectives(model), nullptr);
    ASSERT_FALSE(own.empty());  // collectives matched across ranks
    ASSERT_EQ(own.size(), whole.devices.size());
    for (std::size_t g = 0; g < usual.devices.size(); ++g) {
      auto const& w = whole.devices[g];
      EXPECT_EQ(usual.devices[g].exposed_comm_wait_ns, w.exposed_comm_wait_ns)
          << g << " threads " << threads;
      EXPECT_EQ(usual.devices[g].exposed_comm_transfer_ns, w.exposed_comm_transfer_ns)
          << g << " threads " << threads;
      EXPECT_EQ(std::optional(own[g].wait_ns), w.exposed_comm_wait_ns)
          << g << " own union, threads " << threads;
      EXPECT_EQ(std::optional(own[g].transfer_ns), w.exposed_comm_transfer_ns)
          << g << " own union, threads " << threads;
    }
  }
}

ts::collective_matching match_file(std::vector<std::string> const& paths) {
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  ts::trace_model const model(t);
  return ts::match_collectives(model);
}

}  // namespace

TEST(collectives, nsys_two_processes_match_a_brute_force_over_the_export) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const path = (dir / "nsys/nsys-ai/mfu_2gpu_before.sqlite").string();
  // The export's NCCL kernels per process, by start then rowid; processes are ranks in pid order.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT (k.globalPid >> 24) & 16777215, k.start, k.\"end\" FROM "
                               "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds n ON "
                               "n.id = k.demangledName WHERE n.value LIKE 'nccl%Kernel!_%' "
                               "ESCAPE '!' ORDER BY 1, 2, k.rowid",
                               -1, &s, nullptr),
            SQLITE_OK);
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> by_pid;
  while (sqlite3_step(s) == SQLITE_ROW)
    by_pid[sqlite3_column_int64(s, 0)].emplace_back(sqlite3_column_int64(s, 1),
                                                    sqlite3_column_int64(s, 2));
  sqlite3_finalize(s);
  sqlite3_close(db);
  kernels_by_rank k;
  std::int32_t rank = 0;
  for (auto& [pid, v] : by_pid) k[rank++] = std::move(v);
  expect_matching(match_file({path}), k);
  ts::event_table t;
  ts::read_inputs({path}, t, {}, false);
  expect_late_arrivals(t, k);
  // Every NCCL kernel here is matched and they are all the communication kernels: the exposed
  // wait and transfer make up the exposed communication the session's unions measure.
  ts::trace_model const model(t);
  auto be = ts::make_cpu_backend(2);
  auto const summary = ts::compute_summary(model, *be, {});
  ASSERT_EQ(summary.devices.size(), 2u);
  for (auto const& d : summary.devices) {
    ASSERT_TRUE(d.exposed_comm_wait_ns && d.exposed_comm_transfer_ns);
    EXPECT_GT(*d.exposed_comm_wait_ns, 0);
    EXPECT_EQ(*d.exposed_comm_wait_ns + *d.exposed_comm_transfer_ns,
              d.communication_ns - d.overlap_ns);
  }
  expect_exposed_split_as_from_the_whole_computation_union(model);
}

// The exposed split takes, of the computation kernels, those that meet a collective on their GPU
// (a session that keeps its unions gives it the whole computation union instead): on random
// jobs of two ranks, with compute kernels before, across, inside and after the collectives and
// on other streams, both ways agree, and every matched collective's exposed time is its
// communication less its overlap.
TEST(collectives, exposed_split_from_kernels_that_meet_collectives_equals_the_whole_union) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(seed);
    ts::test::table_builder b;
    int const collectives = 1 + static_cast<int>(rng() % 6);
    for (std::int32_t rank = 0; rank < 2; ++rank) {
      b.input("nsys-sqlite");
      struct row {
        std::int64_t start, end, stream;
        char const* name;
      };
      std::vector<row> rows;
      std::int64_t at = 0;
      for (int c = 0; c < collectives; ++c) {
        at += 100 + static_cast<std::int64_t>(rng() % 400);
        auto const start = at + static_cast<std::int64_t>(rng() % 60);
        auto const end = start + 20 + static_cast<std::int64_t>(rng() % 200);
        rows.push_back({start, end, 7, all_reduce});
        at = end;
      }
      for (int k = 0; k < 60; ++k) {  // compute kernels anywhere, some meeting the collectives
        auto const start = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(at + 200));
        rows.push_back({start, start + static_cast<std::int64_t>(rng() % 150),
                        8 + static_cast<std::int64_t>(rng() % 2), "gemm"});
      }
      // Odd seeds: the rows in start order, as an nsys export has them (the split's union then
      // takes a column of devices over the rows, not a listing by stream).
      if (seed % 2 == 1)
        std::stable_sort(rows.begin(), rows.end(),
                         [](row const& x, row const& y) { return x.start < y.start; });
      for (auto const& r : rows) b.device(kernel, r.start, r.end, 0, r.stream, rank, -1, r.name);
    }
    ts::trace_model const model(b.done());
    auto be = ts::make_cpu_backend(1);
    auto const summary = ts::compute_summary(model, *be, {});
    for (auto const& d : summary.devices) {
      ASSERT_TRUE(d.exposed_comm_wait_ns && d.exposed_comm_transfer_ns) << "seed " << seed;
      EXPECT_EQ(*d.exposed_comm_wait_ns + *d.exposed_comm_transfer_ns,
                d.communication_ns - d.overlap_ns)
          << "seed " << seed;
    }
    expect_exposed_split_as_from_the_whole_computation_union(model);
  }
}

TEST(collectives, kineto_two_ranks_match_a_brute_force_over_their_kernels) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const folder = dir / "kineto/hta_trace_filter_2rank";
  std::vector<std::string> paths{(folder / "sampled_rank-0.json.gz").string(),
                                 (folder / "sampled_rank-1.json.gz").string()};
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  kernels_by_rank k;  // the rows the reader produced, picked and ordered here
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == kernel && t.strings().at(t.name[i]).starts_with("ncclKernel_"))
      k[t.rank[i]].emplace_back(t.start_ns[i], t.end_ns[i]);
  for (auto& [rank, v] : k)
    std::stable_sort(v.begin(), v.end(), [](auto a, auto b) { return a.first < b.first; });
  ts::trace_model const model(t);
  expect_matching(ts::match_collectives(model), k);
  expect_late_arrivals(t, k);
}

TEST(collectives, data_types_operations_and_bus_factors) {
  EXPECT_EQ(ts::data_type_of("Float").name, "float32");
  EXPECT_EQ(ts::data_type_of("BFloat16").size, 2);
  EXPECT_EQ(ts::data_type_of("f32").size, 4);
  EXPECT_EQ(ts::data_type_of("int8_t").name, "int8");
  EXPECT_EQ(ts::data_type_of("Long").size, 8);
  EXPECT_EQ(ts::data_type_of("Quaternion").size, 0);
  EXPECT_EQ(ts::data_type_of("Quaternion").name, "Quaternion");
  EXPECT_EQ(ts::collective_kind_of_operation("allreduce"), collective_kind::all_reduce);
  EXPECT_EQ(ts::collective_kind_of_operation("_allgather_base"), collective_kind::all_gather);
  EXPECT_EQ(ts::collective_kind_of_operation("reduce_scatter_tensor_coalesced"),
            collective_kind::reduce_scatter);
  EXPECT_EQ(ts::collective_kind_of_operation("reduce"), collective_kind::reduce);
  EXPECT_EQ(ts::collective_kind_of_operation("recv"), collective_kind::send_recv);
  EXPECT_EQ(ts::collective_kind_of_operation("barrier"), std::nullopt);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::all_gather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::reduce_scatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::all_to_all, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(ts::bus_factor(collective_kind::send_recv, 2), 1.0);
}

TEST(collectives, names_give_kind_and_type_where_no_args_are_recorded) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  b.device(kernel, 100, 300, 0, 7, 0, -1, "ncclDevKernel_AllGather_RING_LL_bf16");
  b.device(kernel, 400, 500, 0, 7, 0, -1, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(int*)");
  b.input("nsys-sqlite");
  b.device(kernel, 150, 320, 0, 7, 1, -1, "ncclDevKernel_AllGather_RING_LL_bf16");
  b.device(kernel, 400, 450, 0, 7, 1, -1, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(int*)");
  ts::trace_model const model(b.done());
  auto const rows = ts::summarize_collectives(model, ts::match_collectives(model));
  ASSERT_EQ(rows.size(), 4u);
  auto const& gather0 = rows[0];  // rank 0's longest first
  EXPECT_EQ(gather0.kind, collective_kind::all_gather);
  EXPECT_EQ(gather0.dtype, "bfloat16");
  EXPECT_EQ(gather0.bytes, std::nullopt);  // nsys names carry no sizes
  EXPECT_EQ(gather0.algbw_gbps, std::nullopt);
  EXPECT_EQ(gather0.group_size, 2);  // the GPUs taking part, as no group size is recorded
  EXPECT_EQ(gather0.total_ns, 200);
  EXPECT_EQ(gather0.wait_ns, 50);
  EXPECT_EQ(gather0.transfer_ns, 150);
  EXPECT_EQ(rows[1].kind, collective_kind::send_recv);
  EXPECT_EQ(rows[1].dtype, "int8");
  EXPECT_EQ(rows[3].rank, 1);
  EXPECT_EQ(rows[3].wait_ns, 0);
}

namespace {

/// A complete event of an older Kineto trace as the test reads it (times in ns).
struct host_record {
  std::string name;
  std::int64_t pid = 0, tid = 0, start = 0, end = 0;
  std::vector<std::int64_t> elements;  ///< per shape of "Input Dims": its product (-1: empty)
  std::string type;                    ///< "Input type"'s first
};

std::int64_t ns_of(double us) {
  return std::llround(us * 1000);
}

/// What the test expects of one collectives row: (rank, kind, bytes) → calls, time, group size.
struct expected_row {
  std::int64_t calls = 0, total_ns = 0, group = 0;
};
using expected_rows = std::map<std::tuple<std::int32_t, std::string, std::int64_t>, expected_row>;

/// The kind, bytes and implied group size of a kernel from the records around its launch call
/// (innermost first): the `nccl:*` annotation's operation, input count and type, and a
/// `c10d::*_base_` op's output count.
void expect_from_records(std::vector<host_record const*> around, std::int32_t rank,
                         std::int64_t duration, expected_rows& want) {
  std::sort(around.begin(), around.end(),
            [](auto* a, auto* b) { return a->end - a->start < b->end - b->start; });
  std::string op, type;
  std::int64_t in = -1, out = -1;
  for (auto const* r : around) {
    if (r->name.starts_with("nccl:") && op.empty()) {
      op = r->name.substr(5), type = r->type;
      in = r->elements.empty() ? -1 : r->elements[0];
    }
    if (r->name.starts_with("c10d::") && r->name.ends_with("_base_") && r->elements.size() >= 2)
      out = r->elements[0];
  }
  ASSERT_FALSE(op.empty());
  std::map<std::string, std::int64_t> const sizes{
      {"float", 4}, {"long", 8}, {"int", 4}, {"signed char", 1}, {"unsigned char", 1}};
  std::map<std::string, std::string> const kinds{{"all_reduce", "all_reduce"},
                                                 {"all_to_all", "all_to_all"},
                                                 {"_all_gather_base", "all_gather"}};
  auto const kind = kinds.at(op);
  auto const bytes = (kind == "all_gather" ? out : in) * sizes.at(type);
  auto& w = want[{rank, kind, bytes}];
  ++w.calls, w.total_ns += duration;
  if (kind == "all_gather") w.group = out / in;
}

/// Reads one rank file of an older trace and adds what its NCCL kernels should give to `want`.
void expect_older_trace(std::filesystem::path const& path, expected_rows& want,
                        std::size_t& kernels) {
  auto const text = ts::test::load_text(path);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  std::int64_t rank = -1;
  ASSERT_FALSE(doc["distributedInfo"]["rank"].get(rank));
  std::map<std::int64_t, host_record> calls;  // correlation → runtime call
  std::vector<host_record> records;
  std::vector<std::pair<std::int64_t, std::int64_t>> nccl;  // (correlation, duration)
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view ph, cat, name;
    double ts_us = 0, dur_us = 0;
    if (e["ph"].get(ph) || ph != "X" || e["cat"].get(cat) || e["name"].get(name) ||
        e["ts"].get(ts_us) || e["dur"].get(dur_us))
      continue;
    host_record r{std::string(name), 0, 0, ns_of(ts_us), ns_of(ts_us + dur_us), {}, {}};
    if (e["pid"].get(r.pid) || e["tid"].get(r.tid)) continue;
    std::int64_t correlation = -1;
    if (cat == "kernel" && name.starts_with("nccl") && !e["args"]["correlation"].get(correlation))
      nccl.emplace_back(correlation, ns_of(dur_us));  // ts in µs since 1970: ns lost in doubles
    if (cat == "cuda_runtime" && !e["args"]["correlation"].get(correlation)) calls[correlation] = r;
    if (!name.starts_with("nccl:") && !name.starts_with("c10d::")) continue;
    simdjson::dom::array dims, types;
    if (!e["args"]["Input Dims"].get(dims))
      for (auto shape : dims) {
        std::int64_t product = 1, n = 0;
        for (auto d : shape.get_array()) product *= d.get_int64().value(), ++n;
        r.elements.push_back(n ? product : -1);
      }
    std::string_view type;
    if (!e["args"]["Input type"].get(types) && types.size() > 0 && !types.at(0).get(type))
      r.type = type;
    records.push_back(std::move(r));
  }
  for (auto const& [correlation, duration] : nccl) {
    ++kernels;
    auto const& call = calls.at(correlation);
    std::vector<host_record const*> around;
    for (auto const& r : records)
      if (r.pid == call.pid && r.tid == call.tid && r.start <= call.start && call.end <= r.end)
        around.push_back(&r);
    expect_from_records(around, static_cast<std::int32_t>(rank), duration, want);
  }
}

}  // namespace

TEST(collectives, older_traces_take_kinds_and_sizes_from_the_records_around_the_launch) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const folder = dir / "kineto/hta_trace_filter_2rank";
  std::vector<std::string> paths;
  expected_rows want;
  std::size_t kernels = 0;
  for (auto const* name : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"}) {
    paths.push_back((folder / name).string());
    expect_older_trace(folder / name, want, kernels);
  }
  ASSERT_EQ(kernels, 20u);  // every one a SendRecv kernel by name, whatever it did
  ts::event_table t;
  ts::read_inputs(paths, t, {}, false);
  ts::trace_model const model(t);
  auto const rows = ts::summarize_collectives(model, ts::match_collectives(model));
  ASSERT_EQ(rows.size(), want.size());
  for (auto const& r : rows) {
    auto const kind = std::string(ts::collective_kind_name(r.kind));
    SCOPED_TRACE(std::to_string(r.rank) + " " + kind + " " + std::to_string(r.bytes.value_or(-1)));
    ASSERT_TRUE(r.bytes);
    auto const& w = want.at({r.rank, kind, *r.bytes});
    EXPECT_EQ(r.calls, w.calls);
    EXPECT_NEAR(static_cast<double>(r.total_ns), static_cast<double>(w.total_ns), 2.0 * w.calls);
    // An all_gather's group is its output over its input; the others' the GPUs seen (two).
    EXPECT_EQ(r.group_size, w.group ? w.group : 2);
    ASSERT_TRUE(r.algbw_gbps);
    EXPECT_DOUBLE_EQ(*r.algbw_gbps, static_cast<double>(*r.bytes) * r.calls / r.total_ns);
  }
}

TEST(collectives, kineto_args_give_sizes_and_bandwidths_as_the_json_says) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const path = dir / "kineto/hta_nccl_allreduce_a100/nccl_data.json.gz";
  // The test's own reading of the NCCL kernels' args (zlib + simdjson DOM).
  auto const text = ts::test::load_text(path);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  struct sums {
    std::int64_t calls = 0, total_ns = 0, bytes = 0, n = 0;
  };
  std::map<std::pair<std::string, std::int64_t>, sums> want;  // (kind, bytes)
  std::size_t kernels = 0;
  for (auto e : doc["traceEvents"].get_array()) {
    std::string_view cat, name;
    if (e["cat"].get(cat) || cat != "kernel" || e["name"].get(name) || !name.starts_with("nccl"))
      continue;
    ++kernels;
    auto const args = e["args"];
    std::string_view op, dtype;
    std::int64_t in = 0, group = 0;
    ASSERT_FALSE(args["Collective name"].get(op) || args["dtype"].get(dtype) ||
                 args["In msg nelems"].get(in) || args["Group size"].get(group));
    std::int64_t const size = dtype == "Float" ? 4 : dtype == "Long" ? 8 : 0;
    ASSERT_GT(size, 0) << dtype;
    std::string const kind = op == "allreduce" ? "all_reduce" : std::string(op);
    double ts_us = 0, dur_us = 0;
    ASSERT_FALSE(e["ts"].get(ts_us) || e["dur"].get(dur_us));
    auto const start = std::llround(ts_us * 1000), end = std::llround((ts_us + dur_us) * 1000);
    auto& w = want[{kind, in * size}];
    ++w.calls, w.total_ns += end - start, w.bytes = in * size, w.n = group;
  }
  ASSERT_EQ(kernels, 21u);
  ts::event_table t;
  ts::read_inputs({path.string()}, t, {}, false);
  ts::trace_model const model(t);
  auto const rows = ts::summarize_collectives(model, ts::match_collectives(model));
  ASSERT_EQ(rows.size(), want.size());
  std::int64_t calls = 0;
  for (auto const& r : rows) {
    auto const kind = std::string(ts::collective_kind_name(r.kind));
    SCOPED_TRACE(kind + " " + std::to_string(r.bytes.value_or(-1)));
    ASSERT_TRUE(r.bytes);
    auto const& w = want.at({kind, *r.bytes});
    calls += r.calls;
    EXPECT_EQ(r.calls, w.calls);
    EXPECT_NEAR(static_cast<double>(r.total_ns), static_cast<double>(w.total_ns), 2.0 * w.calls);
    EXPECT_EQ(r.group_size, w.n);
    EXPECT_EQ(r.process_group, "0");
    double const factor = kind == "all_reduce" ? 2.0 * (w.n - 1) / w.n : 1.0;
    double const busbw = static_cast<double>(w.bytes) * w.calls / r.total_ns * factor;
    ASSERT_TRUE(r.busbw_gbps);
    EXPECT_DOUBLE_EQ(*r.busbw_gbps, busbw);
    EXPECT_DOUBLE_EQ(*r.algbw_gbps, static_cast<double>(w.bytes) * w.calls / r.total_ns);
    EXPECT_EQ(r.wait_ns, std::nullopt);  // one rank of two: nothing to match
  }
  EXPECT_EQ(calls, 21);  // every NCCL kernel with args accounted for
}

}  // namespace collectives_test
