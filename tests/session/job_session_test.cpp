// SPDX-License-Identifier: Apache-2.0
// The job session: its unions against a brute-force union of each device's rows, its device order
// against a sort of the rows, its job-table unions and denominators against brute force, what its
// needs cover, and that each part is computed once for every analysis of a job (a backend that
// counts its calls).
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/session/job_session.hpp>

#include "support/counting_backend.hpp"
#include "support/summary_compare.hpp"
#include "support/table_builder.hpp"
#include "support/trace_paths.hpp"

namespace ts = tracesweep;
using ts::event_kind;

namespace {

using span_list = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// The union of `spans` by sorting and merging (touching spans merge, empty ones vanish).
span_list brute_union(span_list spans) {
  std::sort(spans.begin(), spans.end());
  span_list out;
  for (auto const& [s, e] : spans) {
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(s, e);
  }
  return out;
}

span_list members(ts::interval_union const& u, ts::group_id g) {
  auto const m = ts::members_of(u, g);
  span_list out;
  for (std::size_t k = 0; k < m.size(); ++k) out.emplace_back(m.start[k], m.end[k]);
  return out;
}

/// Checks every union, the lengths and the device order of `model`'s session.
void check_session(ts::trace_model const& model) {
  auto be = ts::make_cpu_backend(2);
  ts::job_session const session(model, *be, {0, 0, true});
  auto const& a = session.activity({0, 0, true});
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::size_t const devices = model.devices().size();
  std::vector<span_list> busy(devices), kernels(devices), comm(devices), comp(devices);
  std::vector<std::vector<std::size_t>> rows(devices);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (groups[i] == ts::no_device) continue;
    rows[groups[i]].push_back(i);
    busy[groups[i]].emplace_back(t.start_ns[i], t.end_ns[i]);
    if (t.kind[i] != event_kind::kernel) continue;
    kernels[groups[i]].emplace_back(t.start_ns[i], t.end_ns[i]);
    (model.is_communication(t.name[i]) ? comm : comp)[groups[i]].emplace_back(t.start_ns[i],
                                                                              t.end_ns[i]);
  }
  auto const& order = session.device_order();
  for (std::size_t g = 0; g < devices; ++g) {
    auto const id = static_cast<ts::group_id>(g);
    EXPECT_EQ(members(a.activity_union, id), brute_union(busy[g])) << g;
    EXPECT_EQ(members(a.kernel_union, id), brute_union(kernels[g])) << g;
    EXPECT_EQ(members(a.communication_union, id), brute_union(comm[g])) << g;
    EXPECT_EQ(members(a.computation_union, id), brute_union(comp[g])) << g;
    EXPECT_EQ(ts::members_of(a.activity_union, id).total(), a.devices[g].busy) << g;
    std::stable_sort(rows[g].begin(), rows[g].end(),
                     [&](std::size_t x, std::size_t y) { return t.start_ns[x] < t.start_ns[y]; });
    auto const got = order.of(g);
    EXPECT_EQ(std::vector<std::size_t>(got.begin(), got.end()), rows[g]) << g;
  }
}

/// The brute-force union of the rows `key` puts in a group (std::nullopt: in none), by key.
template <typename Key, typename KeyOf>
std::map<Key, span_list> brute_unions(ts::trace_model const& model, KeyOf const& key) {
  auto const& t = model.table();
  std::map<Key, span_list> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (auto const k = key(i)) out[*k].emplace_back(t.start_ns[i], t.end_ns[i]);
  for (auto& [k, spans] : out) spans = brute_union(spans);
  return out;
}

/// Checks the session's job-table unions of `model` against brute force, each computed once.
void check_table_unions(ts::trace_model const& model) {
  using device_key = std::pair<std::size_t, std::int32_t>;
  auto const& t = model.table();
  ts::test::counting_backend counted;
  ts::job_session const session(model, counted, {});
  auto const kept_kernels = brute_unions<device_key>(model, [&](std::size_t i) {
    return t.kind[i] == event_kind::kernel && model.kept(i)
               ? std::optional(device_key(model.rank_index(t.rank[i]), t.device[i]))
               : std::nullopt;
  });
  auto const input_kernels = brute_unions<device_key>(model, [&](std::size_t i) {
    return t.kind[i] == event_kind::kernel && t.device[i] >= 0
               ? std::optional(device_key(static_cast<std::size_t>(t.input_of(i)), t.device[i]))
               : std::nullopt;
  });
  auto const loaders = brute_unions<std::size_t>(model, [&](std::size_t i) {
    return t.kind[i] == event_kind::data_loader && t.device[i] < 0
               ? std::optional(model.rank_index(t.rank[i]))
               : std::nullopt;
  });
  auto const steps = brute_unions<std::size_t>(model, [&](std::size_t i) {
    return t.kind[i] == event_kind::profiler_step && t.device[i] < 0
               ? std::optional(model.rank_index(t.rank[i]))
               : std::nullopt;
  });
  int first_round = 0;
  for (int twice = 0; twice < 2; ++twice) {
    if (twice) first_round = counted.calls["union_by_group"];
    auto const by_rank = session.rank_devices();
    ASSERT_EQ(by_rank.size(), kept_kernels.size());
    std::size_t g = 0;
    for (auto const& [key, spans] : kept_kernels) {
      EXPECT_EQ(std::pair(by_rank[g].owner, by_rank[g].device), key);
      EXPECT_EQ(members(session.unions(ts::table_union::kept_kernels_by_rank_device),
                        static_cast<ts::group_id>(g++)),
                spans);
    }
    auto const by_input = session.input_devices();
    ASSERT_EQ(by_input.size(), input_kernels.size());
    g = 0;
    for (auto const& [key, spans] : input_kernels) {
      EXPECT_EQ(std::pair(by_input[g].owner, by_input[g].device), key);
      EXPECT_EQ(members(session.unions(ts::table_union::kernels_by_input_device),
                        static_cast<ts::group_id>(g++)),
                spans);
    }
    for (std::size_t r = 0; r < model.ranks().size(); ++r) {
      auto const id = static_cast<ts::group_id>(r);
      auto const of = [&](auto const& m) { return m.count(r) ? m.at(r) : span_list{}; };
      EXPECT_EQ(members(session.unions(ts::table_union::data_loaders_by_rank), id), of(loaders));
      EXPECT_EQ(members(session.unions(ts::table_union::steps_by_rank), id), of(steps));
    }
  }
  // One backend union each at most (an empty one asks the backend nothing), none the second time.
  EXPECT_LE(first_round, 4);
  EXPECT_EQ(counted.calls["union_by_group"], first_round);
}

/// How random_table lays its rows out: device after device, each in random order; in start order
/// across the devices; or kind after kind (as an nsys export's tables), each in start order.
enum class row_layout { random, by_start, by_kind_then_start };

/// Fills `b` with random device rows on 3 devices, a quarter of the kernels communication.
ts::event_table const& random_table(std::uint64_t seed, ts::test::table_builder& b,
                                    row_layout layout = row_layout::random) {
  std::mt19937_64 rng(seed);
  auto between = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  struct row {
    event_kind kind;
    std::int64_t start, end;
    std::int32_t device;
    std::int64_t stream;
    char const* name;
  };
  std::vector<row> rows;
  for (std::int32_t dev = 0; dev < 3; ++dev)
    for (int k = 0; k < 60; ++k) {
      std::int64_t const s = between(0, 5000);
      auto const kind = static_cast<event_kind>(between(0, 2));  // kernel, memcpy, memset
      auto const e = s + between(0, 200);
      auto const stream = between(0, 3);
      rows.push_back(
          {kind, s, e, dev, stream, between(0, 3) == 0 ? "ncclKernel_AllReduce" : "gemm"});
    }
  if (layout != row_layout::random)
    std::stable_sort(rows.begin(), rows.end(), [&](row const& x, row const& y) {
      if (layout == row_layout::by_kind_then_start && x.kind != y.kind) return x.kind < y.kind;
      return x.start < y.start;
    });
  b.input("kineto-json");
  for (auto const& r : rows) b.device(r.kind, r.start, r.end, r.device, r.stream, 0, -1, r.name);
  return b.done();
}

TEST(JobSession, UnionsAndOrderEqualBruteForceOnRandomTables) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    for (auto layout : {row_layout::random, row_layout::by_start, row_layout::by_kind_then_start}) {
      ts::test::table_builder b;
      auto const& table = random_table(seed, b, layout);
      check_session(ts::trace_model(table));
    }
  }
}

TEST(JobSession, DeviceOrderOfTimesTooWideForAPackedKeyEqualsASortOfTheRows) {
  // Starts spread over ±2^62 on three devices (63 bits of time and 2 of device: no packed key):
  // the rows are sorted on the host, and between them lie host rows that are in no device order.
  std::mt19937_64 rng(5);
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t const wide = std::int64_t{1} << 62;
  for (int k = 0; k < 300; ++k) {
    auto const s = std::uniform_int_distribution<std::int64_t>(-wide, wide)(rng);
    if (k % 5 == 0) b.host(event_kind::api_call, s, s + 10, 1);
    b.device(event_kind::kernel, k % 7 == 0 ? -wide : s, s + 5, static_cast<std::int32_t>(k % 3),
             0);
  }
  ts::trace_model const model(b.done());
  auto be = ts::make_cpu_backend(1);
  ts::job_session const session(model, *be, {});
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::vector<std::vector<std::size_t>> want(model.devices().size());
  for (std::size_t i = 0; i < t.size(); ++i)
    if (groups[i] != ts::no_device) want[groups[i]].push_back(i);
  auto const& order = session.device_order();
  ASSERT_EQ(order.offsets.size(), want.size() + 1);
  for (std::size_t g = 0; g < want.size(); ++g) {
    std::stable_sort(want[g].begin(), want[g].end(),
                     [&](std::size_t x, std::size_t y) { return t.start_ns[x] < t.start_ns[y]; });
    auto const got = order.of(g);
    EXPECT_EQ(std::vector<std::size_t>(got.begin(), got.end()), want[g]) << g;
  }
}

/// Runs `check` on the model of every readable real trace.
template <typename Check>
void on_every_real_trace(std::filesystem::path const& dir, Check const& check) {
  std::size_t checked = 0;
  for (auto const& path : ts::test::trace_files(dir)) {
    SCOPED_TRACE(path.string());
    ts::event_table table;
    if (!ts::test::read_trace(path, table)) continue;
    check(ts::trace_model(table));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(JobSession, UnionsAndOrderEqualBruteForceOnEveryRealTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  on_every_real_trace(dir, check_session);
}

TEST(JobSession, TableUnionsEqualBruteForceOnEveryRealTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  on_every_real_trace(dir, check_table_unions);
}

TEST(JobSession, TableUnionsOfSeveralRanksWithStepsEqualBruteForce) {
  // Three ranks (and a fourth without steps), each with its steps (overlapping, touching, empty)
  // on two threads and kernels on two devices: the unions per rank and per GPU.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    auto between = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    ts::test::table_builder b;
    for (std::int32_t rank = 0; rank < 4; ++rank) {
      b.input("kineto-json");
      for (int k = 0; rank < 3 && k < 12; ++k) {
        auto const s = between(0, 3000);
        b.host(event_kind::profiler_step, s, s + between(0, 400), 1 + k % 2, rank);
      }
      for (int k = 0; k < 30; ++k) {
        auto const s = between(0, 3000);
        b.device(event_kind::kernel, s, s + between(0, 90), k % 2, 7, rank);
      }
    }
    check_table_unions(ts::trace_model(b.done()));
  }
}

// A rank's denominator is |∪ its steps| (touching and overlapping steps merge), else the span of
// its kept rows; NVTX ranges named like steps move no denominator.
TEST(JobSession, DenominatorsAreTheStepsUnionElseTheSpan) {
  ts::test::table_builder b;
  b.input("kineto-json");
  b.host(event_kind::profiler_step, 0, 100, 1, 0);
  b.host(event_kind::profiler_step, 150, 260, 2, 0);  // overlaps the next
  b.host(event_kind::profiler_step, 100, 200, 1, 0);  // touches the first
  b.host(event_kind::cpu_op, -50, 400, 1, 0);         // the span does not matter with steps
  b.host(event_kind::profiler_step, 320, 320, 1, 0);  // empty: adds nothing
  b.host(event_kind::profiler_step, 300, 310, 1, 0);
  b.input("kineto-json");
  b.host(event_kind::cpu_op, 1000, 1030, 1, 1);
  b.input("nsys-sqlite");
  b.host(event_kind::api_call, 5, 30, 1, 2);
  b.host(event_kind::user_range, 10, 20, 1, 2, -1, "ProfilerStep#1");
  ts::trace_model const m(b.done());
  ts::test::counting_backend counted;
  ts::job_session const session(m, counted, {});
  auto const d0 = session.rank_denominator(0);
  EXPECT_TRUE(d0.from_steps);
  EXPECT_EQ(d0.total_ns, 260 + 10);  // [0,260) ∪ [300,310)
  auto const d1 = session.rank_denominator(1);
  EXPECT_FALSE(d1.from_steps);
  EXPECT_EQ(d1.total_ns, 30);  // [1000, 1030)
  auto const d2 = session.rank_denominator(2);
  EXPECT_FALSE(d2.from_steps);
  EXPECT_EQ(d2.total_ns, 25);                     // [5, 30)
  EXPECT_EQ(counted.calls["union_by_group"], 1);  // one backend union for every rank
}

TEST(JobSession, NeedsCombineAndCover) {
  ts::activity_needs const summary{100, 20, false}, diagnose{50, 0, true};
  auto const both = summary | diagnose;
  EXPECT_EQ(both.min_gap_ns, 50);
  EXPECT_EQ(both.gaps_per_device, 0u);
  EXPECT_TRUE(both.unions);
  EXPECT_TRUE(both.covers(summary));
  EXPECT_TRUE(both.covers(diagnose));
  EXPECT_FALSE(summary.covers(diagnose));
  EXPECT_FALSE(summary.covers({100, 0, false}));  // all gaps, only 20 kept
  EXPECT_FALSE(summary.covers({99, 20, false}));  // shorter gaps than kept
  EXPECT_TRUE(summary.covers({200, 5, false}));
  EXPECT_EQ((ts::activity_needs{10, 3, false} | ts::activity_needs{20, 7, false}).gaps_per_device,
            7u);
  // The computation union: kept by needs that keep it or every union.
  ts::activity_needs const computation{100, 20, false, true};
  EXPECT_TRUE((summary | computation).computation_union);
  EXPECT_FALSE(summary.covers(computation));
  EXPECT_TRUE(computation.covers(summary));
  EXPECT_TRUE(diagnose.covers({100, 20, false, true}));
}

TEST(JobSession, KeepsTheComputationUnionAtEveryThreadCount) {
  // The CPU backend keeps it where the needs ask for it (the summary's split reads it after the
  // activity), on one thread and on more: the same union a session keeping every union holds.
  for (unsigned threads : {1u, 2u, 3u}) {
    ts::test::table_builder b;
    ts::trace_model const model(random_table(7, b));
    auto be = ts::make_cpu_backend(threads);
    ts::job_session const session(model, *be, {0, 0, false, true});
    auto const& a = session.activity({0, 0, false, true});
    EXPECT_TRUE(a.computation_union_kept) << threads;
    ts::job_session const all(model, *be, {0, 0, true});
    auto const& u = all.activity({0, 0, true}).computation_union;
    EXPECT_GT(u.size(), 0u);
    EXPECT_EQ(a.computation_union.start, u.start) << threads;
    EXPECT_EQ(a.computation_union.end, u.end) << threads;
    EXPECT_EQ(a.computation_union.group, u.group) << threads;
    EXPECT_TRUE(a.activity_union.start.empty());  // the others are not kept
    ts::job_session const without(model, *be, {0, 0, false});
    EXPECT_FALSE(without.activity({0, 0, false}).computation_union_kept) << threads;
  }
}

/// A random job with its model, a CPU backend and a session for `needs`.
struct random_job {
  ts::test::table_builder b;
  ts::trace_model model;
  std::unique_ptr<ts::backend> be = ts::make_cpu_backend(1);
  ts::job_session session;
  random_job(std::uint64_t seed, ts::activity_needs const& needs)
      : model(random_table(seed, b)), session(model, *be, needs) {}
};

TEST(JobSession, RefusesAnalysesItWasNotBuiltFor) {
  random_job const job(3, {100, 20, false});
  EXPECT_THROW((void)job.session.activity({0, 0, true}), std::logic_error);
  EXPECT_THROW((void)ts::diagnose(job.session, {}), std::logic_error);
}

TEST(JobSession, GapsSelectedFromTheKeptOnesEqualTheBackendsGapScan) {
  random_job const job(5, {0, 0, true});
  auto const& session = job.session;
  auto& be = job.be;
  auto const& a = session.activity({0, 0, false});
  std::vector<std::int64_t> ws, we;
  for (auto const& d : a.devices) ws.push_back(d.window_start), we.push_back(d.window_end);
  for (std::int64_t min_gap : {0, 1, 7, 30, 100})
    for (std::size_t top : {0, 1, 2, 5}) {
      auto const expected = be->gap_scan(a.activity_union, {ws, we}, min_gap, top);
      EXPECT_EQ(session.gaps({min_gap, top, false}), expected) << min_gap << " " << top;
    }
}

// One session serves the summary and the diagnosis of a job (as the fleet's per-job analysis
// does): one device_activity call and one sort for both, and the answers of each alone.
TEST(JobSession, SummaryAndDiagnoseShareOneDeviceActivity) {
  ts::test::table_builder b;
  auto const& table = random_table(11, b);
  ts::trace_model const model(table);
  ts::summary_options so;
  so.min_gap_ns = 10;
  so.top = 0;
  ts::diagnose_options o;
  o.min_gap_ns = 10;
  o.top = 0;
  ts::test::counting_backend counted;
  ts::job_session const session(model, counted, ts::summary_needs(so) | ts::diagnose_needs(o));
  auto const s = ts::compute_summary(session, so);
  auto const d = ts::diagnose(session, o);
  EXPECT_EQ(counted.calls["device_activity"], 1);
  EXPECT_EQ(counted.calls["sort_pairs"], 1);
  EXPECT_EQ(counted.calls["segmented_stats"], 0);  // the CPU backend's own calls are not counted

  auto be = ts::make_cpu_backend(1);
  auto const s_alone = ts::compute_summary(model, *be, so);
  auto const d_alone = ts::diagnose(model, *be, o);
  ts::test::expect_same(s, s_alone, "the shared session");
  EXPECT_EQ(ts::diagnose_results(d).tables.size(), ts::diagnose_results(d_alone).tables.size());
  ASSERT_EQ(d.gaps.size(), d_alone.gaps.size());
  for (std::size_t k = 0; k < d.gaps.size(); ++k) {
    EXPECT_EQ(d.gaps[k].start_ns, d_alone.gaps[k].start_ns);
    EXPECT_EQ(d.gaps[k].cause, d_alone.gaps[k].cause);
  }
  ASSERT_EQ(d.verdicts.size(), d_alone.verdicts.size());
  for (std::size_t k = 0; k < d.verdicts.size(); ++k) {
    EXPECT_EQ(d.verdicts[k].what, d_alone.verdicts[k].what);
    EXPECT_EQ(d.verdicts[k].busy_share, d_alone.verdicts[k].busy_share);
  }
}

}  // namespace
