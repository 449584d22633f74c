// SPDX-License-Identifier: Apache-2.0
// overview --table collectives and collective_ranks through the binary: every real trace (each
// Kineto folder one job, each nsys export one job) runs both without error, the two tables count
// the same collectives per rank, collective_ranks has one row per rank with NCCL kernels; a
// generated job with a late rank (generate --plant collectives) gives exactly its truth in both
// forms, in these tables, in diagnose's late_arrivals and in the summary's exposed wait and
// transfer; a job without NCCL kernels gets an empty table and one stderr warning; the two-process
// nsys export's CSV rows say what match_collectives computes (tests/analysis/collectives_test.cpp
// checks that against a brute-force matching).
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"
#include "support/trace_paths.hpp"

using tracesweep::test::quote;
using tracesweep::test::run_cli;

TEST(collectives, every_real_trace_runs_both_tables_and_they_agree_on_the_calls) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const jobs = tracesweep::test::real_trace_jobs(dir);
  ASSERT_GE(jobs.size(), 20u);
  std::size_t with_collectives = 0;
  for (auto const& job : jobs) {
    SCOPED_TRACE(job.string());
    auto const r = run_cli("overview --table collectives --format json " + quote(job));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto const ranks = run_cli("overview --table collective_ranks --format json " + quote(job));
    ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
    simdjson::dom::parser p1, p2;
    simdjson::dom::array rows, rank_rows;
    ASSERT_EQ(p1.parse(r.out)["collectives"].get_array().get(rows), simdjson::SUCCESS) << r.out;
    ASSERT_EQ(p2.parse(ranks.out)["collective_ranks"].get_array().get(rank_rows), simdjson::SUCCESS)
        << ranks.out;
    if (rank_rows.size() == 0) {  // no collectives: empty tables, each with its warning
      EXPECT_EQ(rows.size(), 0u);
      EXPECT_NE(r.err.find("warning: collectives: no NCCL kernels in the job"), std::string::npos)
          << r.err;
      EXPECT_NE(ranks.err.find("warning: collective_ranks: no NCCL kernels in the job"),
                std::string::npos)
          << ranks.err;
      continue;
    }
    ++with_collectives;
    // One collective_ranks row per rank with NCCL kernels; each rank's calls over its
    // collectives rows = its collectives there, of which at most all were matched.
    std::map<std::int64_t, std::int64_t> calls, collectives;
    for (auto row : rows)
      calls[row["rank"].get_int64().value()] += row["calls"].get_int64().value();
    for (auto row : rank_rows) {
      auto const n = row["collectives"].get_int64().value();
      collectives[row["rank"].get_int64().value()] = n;
      EXPECT_GT(n, 0);
      EXPECT_LE(row["matched"].get_int64().value(), n);
    }
    EXPECT_EQ(calls, collectives);
    EXPECT_EQ(collectives.size(), rank_rows.size());
  }
  EXPECT_GE(with_collectives, 4u);  // hta_nccl_allreduce, trace_filter_2rank, the nsys-ai pairs…
}

TEST(collective_ranks, two_processes_of_one_export_wait_for_each_other) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  auto const r = run_cli("overview --table collective_ranks --format csv " +
                         quote(dir / "nsys/nsys-ai/mfu_2gpu_before.sqlite"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Header and two ranks; both ranks have a wait (neither always arrives first).
  auto const header = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(header,
            "rank,collectives,matched,wait_ns,transfer_ns,last_arrivals,wait_caused_ns,wait_share");
  std::size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 3u) << r.out;
  EXPECT_EQ(r.out.find(",,"), std::string::npos) << r.out;  // no null cell across two ranks
}

namespace collective_ranks_test {

/// The rows of table `name` in the JSON document `doc`, by key.
template <class Key>
std::map<Key, simdjson::dom::object> rows_by(simdjson::dom::element doc, char const* name,
                                             Key (*key)(simdjson::dom::object)) {
  std::map<Key, simdjson::dom::object> out;
  for (auto row : doc[name].get_array()) out[key(row.get_object())] = row.get_object();
  return out;
}

std::int64_t rank_key(simdjson::dom::object row) {
  return row["rank"].get_int64().value();
}

std::pair<std::int64_t, std::string> rank_kind_key(simdjson::dom::object row) {
  return {row["rank"].get_int64().value(), std::string(row["kind"].get_string().value())};
}

/// `got[field]` equals `want[field]` (an integer), or both are null.
void expect_integer(simdjson::dom::object got, simdjson::dom::object want, char const* field) {
  std::int64_t g = 0, w = 0;
  ASSERT_EQ(want[field].get_int64().get(w), simdjson::SUCCESS) << field;
  ASSERT_EQ(got[field].get_int64().get(g), simdjson::SUCCESS) << field;
  EXPECT_EQ(g, w) << field;
}

void expect_real(simdjson::dom::object got, simdjson::dom::object want, char const* field) {
  double g = 0, w = 0;
  ASSERT_EQ(want[field].get_double().get(w), simdjson::SUCCESS) << field;
  ASSERT_EQ(got[field].get_double().get(g), simdjson::SUCCESS) << field;
  EXPECT_NEAR(g, w, 1e-12 * w) << field;
}

/// diagnose's late_arrivals as the truth's, and the summary's exposed wait and transfer as the
/// truth's per-rank wait and transfer (the planted job overlaps no collective with computation).
void expect_late_arrivals_and_exposed_split(std::filesystem::path const& input,
                                            simdjson::dom::element truth) {
  auto const d = run_cli("diagnose --format json " + quote(input));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  simdjson::dom::parser p1;
  auto const late = rows_by(p1.parse(d.out).value(), "late_arrivals", rank_key);
  auto const want_late = rows_by(truth, "late_arrivals", rank_key);
  ASSERT_EQ(late.size(), want_late.size());
  ASSERT_EQ(late.size(), 1u);
  for (auto const& [rank, want] : want_late) {
    auto const got = late.at(rank);
    for (auto const* f : {"last_arrivals", "wait_caused_ns", "worst_wait_caused_ns"})
      expect_integer(got, want, f);
    simdjson::dom::array behind;
    ASSERT_EQ(got["behind"].get(behind), simdjson::SUCCESS);
    ASSERT_GE(behind.size(), 1u);
    EXPECT_EQ(behind.at(0)["name"].get_string().value(), want["behind"].get_string().value());
    EXPECT_EQ(behind.at(0)["excess_ns"].get_int64().value(),
              want["behind_excess_ns"].get_int64().value());
  }
  auto const s = run_cli("summary --format json " + quote(input));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  simdjson::dom::parser p2;
  auto const devices = rows_by(p2.parse(s.out).value(), "devices", rank_key);
  auto const want_ranks = rows_by(truth, "collective_ranks", rank_key);
  ASSERT_EQ(devices.size(), want_ranks.size());
  for (auto const& [rank, want] : want_ranks) {
    EXPECT_EQ(devices.at(rank)["exposed_comm_wait_ns"].get_int64().value(),
              want["wait_ns"].get_int64().value());
    EXPECT_EQ(devices.at(rank)["exposed_comm_transfer_ns"].get_int64().value(),
              want["transfer_ns"].get_int64().value());
  }
}

TEST(collectives, a_planted_late_rank_is_measured_exactly_in_kineto_and_nsys_form) {
  tracesweep::test::scratch dir("collectives_plant");
  std::string const shape =
      "generate --plant collectives --ranks 4 --steps 5 --late-rank 2 "
      "--late-ns 300000 ";
  auto const truth_path = dir.file("truth.json");
  auto const kineto = dir.file("kineto");
  auto const nsys = dir.file("job.sqlite");
  auto g = run_cli(shape + "--format kineto-json -o " + quote(kineto.string() + "/") + " --truth " +
                   quote(truth_path));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  g = run_cli(shape + "--format nsys-sqlite -o " + quote(nsys));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  simdjson::dom::parser truth_parser;
  auto const truth = truth_parser.load(truth_path.string()).value();
  auto const want_ranks = rows_by(truth, "collective_ranks", rank_key);
  auto const want_rows = rows_by(truth, "collectives", rank_kind_key);
  ASSERT_EQ(want_ranks.size(), 4u);
  ASSERT_EQ(want_rows.size(), 8u);
  for (auto const& input : {kineto, nsys}) {
    SCOPED_TRACE(input.string());
    bool const from_kineto = input == kineto;
    auto const ranks = run_cli("overview --table collective_ranks --format json " + quote(input));
    auto const rows = run_cli("overview --table collectives --format json " + quote(input));
    ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
    ASSERT_EQ(rows.exit_code, 0) << rows.err;
    EXPECT_EQ(ranks.err, "");  // everything matched
    simdjson::dom::parser p1, p2;
    auto const got_ranks = rows_by(p1.parse(ranks.out).value(), "collective_ranks", rank_key);
    auto const got_rows = rows_by(p2.parse(rows.out).value(), "collectives", rank_kind_key);
    ASSERT_EQ(got_ranks.size(), want_ranks.size());
    for (auto const& [rank, want] : want_ranks) {
      SCOPED_TRACE("rank " + std::to_string(rank));
      for (auto const* f :
           {"collectives", "wait_ns", "transfer_ns", "last_arrivals", "wait_caused_ns"})
        expect_integer(got_ranks.at(rank), want, f);
    }
    expect_late_arrivals_and_exposed_split(input, truth);
    ASSERT_EQ(got_rows.size(), want_rows.size());
    for (auto const& [key, want] : want_rows) {
      SCOPED_TRACE(key.second + " on rank " + std::to_string(key.first));
      auto const got = got_rows.at(key);
      for (auto const* f : {"group_size", "calls", "total_ns", "wait_ns", "transfer_ns"})
        expect_integer(got, want, f);
      std::string_view dtype;
      ASSERT_EQ(got["dtype"].get(dtype), simdjson::SUCCESS);
      if (from_kineto) {
        EXPECT_EQ(dtype, want["dtype"].get_string().value());
        expect_integer(got, want, "bytes");
        for (auto const* f : {"algbw_gbps", "busbw_gbps", "busbw_transfer_gbps"})
          expect_real(got, want, f);
      } else {  // nsys records no sizes; the type only where the kernel name has one
        EXPECT_EQ(dtype, key.second == "all_reduce" ? "float32" : "");
        EXPECT_TRUE(got["bytes"].is_null());
        EXPECT_TRUE(got["busbw_gbps"].is_null());
      }
    }
  }
}

}  // namespace collective_ranks_test
