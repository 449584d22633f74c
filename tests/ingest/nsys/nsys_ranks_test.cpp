// SPDX-License-Identifier: Apache-2.0
// nsys ranks (issue 26, item 12): one rank per process, numbered 0, 1, … by process id with the
// GPU processes first, or the rank a one-process capture's launch environment names; the process
// id kept beside it. Checked against the test's own SQL on the real exports.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "generated_export.hpp"
#include "ingest/nsys/nsys_ranks.hpp"
#include "nsys_test_support.hpp"
#include "support/run_cli.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::test {
namespace nsys_ranks_test {

/// The processes the export lists with CUDA streams, ascending.
std::vector<std::int64_t> cuda_stream_pids(std::filesystem::path const& f) {
  oracle_db db(f);
  std::vector<std::int64_t> pids;
  for (auto const& r :
       db.query("SELECT DISTINCT processId FROM TARGET_INFO_CUDA_STREAM ORDER BY processId"))
    pids.push_back(r[0].i);
  return pids;
}

/// Kernels per process id, as the test's own query counts them.
std::map<std::int64_t, std::int64_t> sql_kernels_per_pid(std::filesystem::path const& f) {
  oracle_db db(f);
  std::map<std::int64_t, std::int64_t> out;
  for (auto const& r : db.query("SELECT (globalPid >> 24) & 16777215, count(*) FROM "
                                "CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1"))
    out[r[0].i] = r[1].i;
  return out;
}

/// Kernels per process id, as read: each row's rank mapped back to its process.
std::map<std::int64_t, std::int64_t> kernels_per_pid(event_table const& t) {
  std::map<std::int64_t, std::int64_t> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.kind[i] == event_kind::kernel) ++out[t.process_id_of(i)];
  return out;
}

TEST(NsysRanks, TwoGpuProcessesAreRanksZeroAndOneAndKeepTheirProcessIds) {
  // Before: the ranks were the process ids 144 and 145.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  auto const pids = cuda_stream_pids(f);
  ASSERT_EQ(pids.size(), 2u);
  auto const t = read_export(f, 2);
  auto const& info = t.inputs().at(0);
  EXPECT_EQ(info.ranks, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(info.process_id(0), pids[0]);
  EXPECT_EQ(info.process_id(1), pids[1]);
  EXPECT_TRUE(info.ranks_numbered_by_reader);
  EXPECT_EQ(kernels_per_pid(t), sql_kernels_per_pid(f));
}

TEST(NsysRanks, TheCommandLineNamesRanksAndKeepsProcessIdsInThePidColumns) {
  // Runs the binary (TRACESWEEP_TEST_BINARY can name an older one): before, the summary's
  // devices and inputs named ranks 144 and 145.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  auto const pids = cuda_stream_pids(f);
  ASSERT_EQ(pids.size(), 2u);
  auto const summary = run_cli("summary --format json " + quote(f));
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(summary.out).get(doc), simdjson::SUCCESS);
  std::set<std::int64_t> device_ranks;
  for (auto d : doc["devices"].get_array()) device_ranks.insert(std::int64_t(d["rank"]));
  EXPECT_EQ(device_ranks, (std::set<std::int64_t>{0, 1}));
  auto const input = doc["inputs"].at(0);
  std::vector<std::int64_t> ranks;
  for (auto r : input["ranks"].get_array()) ranks.push_back(std::int64_t(r));
  EXPECT_EQ(ranks, (std::vector<std::int64_t>{0, 1}));
  simdjson::dom::object processes;
  ASSERT_EQ(input["process_ids"].get(processes), simdjson::SUCCESS);
  EXPECT_EQ(std::int64_t(processes["0"]), pids[0]);
  EXPECT_EQ(std::int64_t(processes["1"]), pids[1]);
  // The nsys-compatible report still prints the process id in its PID column.
  auto const report = run_cli("stats --report cuda_kern_exec_sum --format csv " + quote(f));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  auto const rows = parse_csv(report.out);
  ASSERT_GT(rows.size(), 1u);
  auto const pid_column = std::find(rows[0].begin(), rows[0].end(), "PID") - rows[0].begin();
  ASSERT_LT(static_cast<std::size_t>(pid_column), rows[0].size());
  std::set<std::int64_t> printed;
  for (std::size_t i = 1; i < rows.size(); ++i)
    printed.insert(std::stoll(rows[i][static_cast<std::size_t>(pid_column)]));
  EXPECT_EQ(printed, (std::set<std::int64_t>(pids.begin(), pids.end())));
}

TEST(NsysRanks, EveryRealExportNumbersItsProcessesFromZeroByProcessId) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  for (auto const& f : nsys_exports(traces)) {
    SCOPED_TRACE(f.string());
    auto const t = read_export(f, 2);
    auto const& info = t.inputs().at(0);
    auto const gpu = cuda_stream_pids(f);
    // The processes with CUDA streams hold ranks 0 … n−1 in process-id order.
    for (std::size_t k = 0; k < gpu.size(); ++k) {
      auto const rank = static_cast<std::int32_t>(k);
      if (!info.process_ids.contains(rank)) continue;  // no row of it read
      EXPECT_EQ(info.process_id(rank), gpu[k]);
    }
    std::set<std::int64_t> distinct;
    for (auto r : info.ranks) distinct.insert(info.process_id(r));
    EXPECT_EQ(distinct.size(), info.ranks.size());
    EXPECT_EQ(kernels_per_pid(t), sql_kernels_per_pid(f));
  }
}

TEST(NsysRanks, TheRanksDoNotDependOnTheTablesRead) {
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const f = traces / "nsys" / "nsys-ai" / "mfu_2gpu_before.sqlite";
  read_options host;
  host.kinds = kind_bit(event_kind::api_call);
  auto const all = read_export(f, 1), calls = read_export(f, 1, host);
  EXPECT_EQ(calls.inputs()[0].ranks, (std::vector<std::int32_t>{0, 1}));
  for (std::int32_t rank : {0, 1})
    EXPECT_EQ(all.inputs()[0].process_ids.at(rank), calls.inputs()[0].process_ids.at(rank));
}

// An export past three chunks of 2^16 rows, read on three threads: the passes over its rows in
// chunks find the same processes and ranks as one thread. Process 0 keeps only host rows, so it
// comes after the GPU processes 1 and 2 (the export lists no CUDA streams: the device rows say
// which processes have GPU work); process 3 has one API call, the table's last row.
TEST(NsysRanks, ProcessesFoundInChunksOnThreadsAreRankedAsOnOneThread) {
  temp_dir dir("nsys_ranks_threads");
  event_table generated;
  auto const f = write_generated_export({3, 1, 2, 20000}, generated, dir, "three.sqlite");
  {
    oracle_db db(f, true);
    for (auto const* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"})
      db.exec(std::string("DELETE FROM ") + table + " WHERE (globalPid >> 24) & 16777215 = 0");
    db.exec(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, \"end\", eventClass, globalTid, "
        "correlationId, nameId, returnValue) SELECT max(\"end\"), max(\"end\") + 10, "
        "eventClass, (3 << 24) + 77, 0, nameId, 0 FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  }
  auto const one = read_export(f, 1), three = read_export(f, 3);
  ASSERT_GT(three.size(), std::size_t{3} << 16);
  auto const& info = three.inputs().at(0);
  EXPECT_EQ(info.ranks, (std::vector<std::int32_t>{0, 1, 2, 3}));
  std::vector<std::int64_t> pids;
  for (std::int32_t rank = 0; rank < 4; ++rank) pids.push_back(info.process_id(rank));
  EXPECT_EQ(pids, (std::vector<std::int64_t>{1, 2, 0, 3}));
  EXPECT_EQ(one.inputs().at(0).ranks, info.ranks);
  EXPECT_EQ(one.inputs().at(0).process_ids, info.process_ids);
  EXPECT_EQ(one.rank, three.rank);
  EXPECT_EQ(kernels_per_pid(three), sql_kernels_per_pid(f));
}

TEST(NsysRanks, TheLaunchEnvironmentNamesTheRankOfAOneProcessCapture) {
  EXPECT_EQ(nsys::rank_in_environment("HOME=/root;RANK=3;LOCAL_RANK=1"), 3);
  EXPECT_EQ(nsys::rank_in_environment("LOCAL_RANK=1;OMPI_COMM_WORLD_RANK=5"), 5);
  EXPECT_EQ(nsys::rank_in_environment("RANK=x;PMI_RANK=6"), 6);
  EXPECT_EQ(nsys::rank_in_environment("SLURM_PROCID=2;RANK=4"), 4);  // RANK first
  EXPECT_EQ(nsys::rank_in_environment("LOCAL_RANK=1;RANKS=2;RANK=-1;RANK=;RANK=7x"), std::nullopt);
  EXPECT_EQ(nsys::rank_in_environment("RANK=2147483648"), std::nullopt);

  temp_dir dir("nsys_ranks");
  event_table generated;
  auto const one = write_generated_export({1, 1, 2, 3}, generated, dir, "one.sqlite");
  auto const two = write_generated_export({2, 1, 2, 3}, generated, dir, "two.sqlite");
  for (auto const& f : {one, two}) {
    oracle_db db(f, true);
    db.exec(
        "CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, "
        "name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL)");
    db.exec(
        "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (NULL, 'x', 'DeviceEnvironment', 0, "
        "'PATH=/bin;SLURM_PROCID=7;LOCAL_RANK=0')");
  }
  auto const t1 = read_export(one, 1);
  EXPECT_EQ(t1.inputs()[0].ranks, (std::vector<std::int32_t>{7}));
  EXPECT_FALSE(t1.inputs()[0].ranks_numbered_by_reader);
  {  // The largest rank there is: taken as it is, no rank computed past it.
    oracle_db db(one, true);
    db.exec("UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'RANK=2147483647'");
  }
  auto const top = read_export(one, 1);
  EXPECT_EQ(top.inputs()[0].ranks, (std::vector<std::int32_t>{2147483647}));
  EXPECT_FALSE(top.inputs()[0].ranks_numbered_by_reader);
  // Two GPU processes: one environment cannot name both; they are numbered.
  auto const t2 = read_export(two, 1);
  EXPECT_EQ(t2.inputs()[0].ranks, (std::vector<std::int32_t>{0, 1}));
  EXPECT_TRUE(t2.inputs()[0].ranks_numbered_by_reader);
}

TEST(NsysRanks, TwoOneProcessExportsOfOneJobGetRanksZeroAndOne) {
  // Each export alone numbers its process 0: the second moves past the first instead of being
  // refused as a second claim on rank 0.
  TRACESWEEP_REQUIRE_TRACES_DIR(traces);
  auto const a = traces / "nsys" / "nsys-ai" / "mock.sqlite";
  auto const b = traces / "nsys" / "recon-stream" / "report3_nsys2023.1.2.sqlite";
  event_table t;
  auto const failures = read_inputs({a.string(), b.string()}, t, {}, false);
  EXPECT_TRUE(failures.empty());
  ASSERT_EQ(t.inputs().size(), 2u);
  EXPECT_EQ(t.inputs()[0].ranks, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(t.inputs()[1].ranks, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(t.inputs()[0].process_id(0), cuda_stream_pids(a).at(0));
  EXPECT_EQ(t.inputs()[1].process_id(1), cuda_stream_pids(b).at(0));
}

}  // namespace nsys_ranks_test

}  // namespace tracesweep::test
