// SPDX-License-Identifier: Apache-2.0
// Columns held for a job on the device backend (host twin context): union_of_rows equals the
// CPU backend's whether its columns are held or not, chunked or not, and when a column does not
// fit its share of the memory budget; a held column goes up once across calls and is freed with
// its last hold; and on a real trace each column of the event table and the model goes up at
// most once for a whole job: the summary, the diagnosis, every overview table, and a fleet job.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/kernel_stats.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/fleet/job_record.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/output/writer.hpp>
#include <tracesweep/reports/job_table_registry.hpp>
#include <tracesweep/session/job_session.hpp>

#include "cuda/detail/device_backend.hpp"
#include "cuda/detail/host_context.hpp"
#include "support/summary_compare.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::cuda_detail {
namespace {

using twin_backend = device_backend<host_context>;

/// Random intervals and a random selection of their rows in random groups.
struct random_rows {
  std::vector<std::int64_t> start, end;
  std::vector<std::size_t> rows;
  std::vector<group_id> group;
  [[nodiscard]] row_intervals view() const { return {start, end, rows, group}; }
};

random_rows make_rows(std::mt19937_64& rng, std::size_t n, std::size_t groups) {
  random_rows r;
  for (std::size_t i = 0; i < n; ++i) {
    auto const s = static_cast<std::int64_t>(rng() % 50'000);
    r.start.push_back(s);
    r.end.push_back(s + (rng() % 9 == 0 ? 0 : static_cast<std::int64_t>(rng() % 700)));
  }
  for (std::size_t i = 0; i < n; ++i)
    if (rng() % 3 != 0) {
      r.rows.push_back(i);
      r.group.push_back(static_cast<group_id>(rng() % groups));
    }
  // Rows may be taken twice, in any order.
  for (std::size_t k = 0; k < n / 10; ++k) {
    r.rows.push_back(rng() % n);
    r.group.push_back(static_cast<group_id>(rng() % groups));
  }
  std::shuffle(r.rows.begin(), r.rows.end(), rng);
  return r;
}

void expect_same(interval_union const& a, interval_union const& b, std::string const& which) {
  EXPECT_EQ(a.group, b.group) << which;
  EXPECT_EQ(a.start, b.start) << which;
  EXPECT_EQ(a.end, b.end) << which;
}

/// The union of the taken rows gathered on the host, by the CPU backend's union_by_group: the
/// reference union_of_rows must equal on every backend.
interval_union gathered_union(random_rows const& r) {
  std::vector<std::int64_t> s, e;
  for (auto const i : r.rows) s.push_back(r.start[i]), e.push_back(r.end[i]);
  return make_cpu_backend(1)->union_by_group({s, e, r.group});
}

TEST(HeldColumns, UnionOfRowsEqualsTheGatheredUnionHeldOrNot) {
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 40; ++round) {
    auto const r = make_rows(rng, 1 + rng() % 3000, 1 + rng() % 6);
    auto const want = gathered_union(r);
    expect_same(make_cpu_backend(2)->union_of_rows(r.view()), want, "cpu");
    twin_backend plain(host_context{}, 0, "twin");
    expect_same(plain.union_of_rows(r.view()), want, "twin, not held");
    twin_backend held(host_context{}, 0, "twin");
    held.hold(std::span(r.start));
    held.hold(std::span(r.end));
    expect_same(held.union_of_rows(r.view()), want, "twin, held");
    // A lowered row limit: the held rows in chunks, stitched on the host.
    twin_backend chunked(host_context{}, 0, "twin", 1 + rng() % 200);
    chunked.hold(std::span(r.start));
    chunked.hold(std::span(r.end));
    expect_same(chunked.union_of_rows(r.view()), want, "twin, held, chunked");
    EXPECT_GE(chunked.chunks_run(), 1u);
  }
}

TEST(HeldColumns, UnionOfRowGroupsEqualsTheCpuBackendsHeldOrNot) {
  // A group column over the rows (no_group: not taken): the device backend lists the taken rows
  // and unions them as union_of_rows does; the CPU backend sweeps the columns.
  std::mt19937_64 rng(2027);
  for (int round = 0; round < 30; ++round) {
    auto const r = make_rows(rng, 1 + rng() % 3000, 1);
    std::size_t const groups = 1 + rng() % 6;
    std::vector<group_id> group(r.start.size());
    for (auto& g : group)
      g = rng() % 4 == 0 ? row_groups::no_group : static_cast<group_id>(rng() % groups);
    row_groups const in{r.start, r.end, group, groups};
    auto const want = make_cpu_backend(2)->union_of_row_groups(in);
    std::vector<std::size_t> rows;
    std::vector<group_id> taken;
    for (std::size_t i = 0; i < group.size(); ++i)
      if (group[i] != row_groups::no_group) rows.push_back(i), taken.push_back(group[i]);
    expect_same(make_cpu_backend(1)->union_of_rows({r.start, r.end, rows, taken}), want, "rows");
    twin_backend plain(host_context{}, 0, "twin");
    expect_same(plain.union_of_row_groups(in), want, "twin, not held");
    twin_backend held(host_context{}, 0, "twin");
    held.hold(std::span(r.start));
    held.hold(std::span(r.end));
    expect_same(held.union_of_row_groups(in), want, "twin, held");
  }
}

TEST(HeldColumns, AHeldColumnGoesUpOnceAcrossCallsAndIsFreedWithItsLastHold) {
  std::mt19937_64 rng(7);
  auto const r = make_rows(rng, 2000, 3);
  twin_backend be(host_context{}, 0, "twin");
  auto const& c = be.context().transfers();
  be.hold(std::span(r.start)), be.hold(std::span(r.end));
  be.hold(std::span(r.start));  // nested: one copy
  for (int call = 0; call < 3; ++call)
    expect_same(be.union_of_rows(r.view()), gathered_union(r), "held");
  // start and end once; each call its rows and groups.
  EXPECT_EQ(c.uploads, 2u + 3 * 2);
  EXPECT_EQ(c.upload_bytes, 2 * r.start.size() * 8 + 3 * r.rows.size() * (8 + 4));
  auto const held_bytes = be.context().memory().current;
  EXPECT_EQ(held_bytes, 2 * r.start.size() * 8);

  be.release(std::span(r.start)), be.release(std::span(r.end));
  EXPECT_EQ(be.context().memory().current, held_bytes / 2);  // start is still held once
  be.release(std::span(r.start));
  EXPECT_EQ(be.context().memory().current, 0u);
  // Not held any more: the rows are gathered on the host and go up as intervals.
  auto const before = c.uploads;
  expect_same(be.union_of_rows(r.view()), gathered_union(r), "released");
  EXPECT_EQ(c.uploads - before, 3u);
}

TEST(HeldColumns, AColumnOverItsShareOfTheBudgetIsNotCopied) {
  std::mt19937_64 rng(11);
  auto const r = make_rows(rng, 4000, 2);
  // Held copies may take half of what rows may: here less than one column's 32 000 bytes.
  twin_backend be(host_context{}, host_context::temporary_reserve + 40'000, "twin");
  be.hold(std::span(r.start)), be.hold(std::span(r.end));
  for (int call = 0; call < 2; ++call)
    expect_same(be.union_of_rows(r.view()), gathered_union(r), "over the share");
  EXPECT_LE(be.context().memory().peak, host_context::temporary_reserve + 40'000);
  // No held copy was made: each call uploads its gathered intervals.
  for (auto const& u : be.context().upload_sources())
    EXPECT_NE(static_cast<void const*>(u.data), static_cast<void const*>(r.start.data()));
}

/// The statistics of the taken rows' durations computed on the host, by the CPU backend's
/// segmented_stats: the reference duration_stats must equal on every backend.
std::vector<exact_stats> host_duration_stats(random_rows const& r,
                                             std::vector<std::uint32_t> const& keys,
                                             std::span<double const> quantiles) {
  std::vector<std::int64_t> d;
  for (auto const i : r.rows) d.push_back(r.end[i] - r.start[i]);
  return make_cpu_backend(1)->segmented_stats(keys, d, quantiles);
}

TEST(HeldColumns, DurationStatsEqualTheHostDurationsStatisticsHeldOrNot) {
  std::mt19937_64 rng(99);
  std::vector<double> const quantiles{0.5, 0.9, 0.99};
  for (int round = 0; round < 30; ++round) {
    auto const r = make_rows(rng, 1 + rng() % 3000, 1);
    std::vector<std::uint32_t> keys;
    for (std::size_t k = 0; k < r.rows.size(); ++k) keys.push_back(rng() % 17);
    row_durations const in{r.start, r.end, r.rows, keys};
    auto const want = host_duration_stats(r, keys, quantiles);
    EXPECT_EQ(make_cpu_backend(2)->duration_stats(in, quantiles), want);
    twin_backend plain(host_context{}, 0, "twin");
    EXPECT_EQ(plain.duration_stats(in, quantiles), want);
    twin_backend held(host_context{}, 0, "twin");
    held.hold(std::span(r.start)), held.hold(std::span(r.end));
    EXPECT_EQ(held.duration_stats(in, quantiles), want);
    // Held, the intervals go up once, then the rows and keys, and the order statistics' ranks
    // (stats_resident).
    std::size_t const ranks = want.size() * (4 + 2 * quantiles.size());
    EXPECT_EQ(held.context().transfers().upload_bytes,
              2 * r.start.size() * 8 + (r.rows.empty() ? 0 : r.rows.size() * (8 + 4) + ranks * 8));
    // Under a row limit the rows do not fit one pass: the host computes the durations.
    twin_backend limited(host_context{}, 0, "twin", 1 + rng() % 100);
    limited.hold(std::span(r.start)), limited.hold(std::span(r.end));
    EXPECT_EQ(limited.duration_stats(in, quantiles), want);
    // Every row of the columns, without a list of rows: only the keys go up beside the columns.
    random_rows every = r;
    every.rows.resize(r.start.size());
    std::iota(every.rows.begin(), every.rows.end(), std::size_t{0});
    std::vector<std::uint32_t> every_key;
    for (std::size_t k = 0; k < every.rows.size(); ++k) every_key.push_back(rng() % 17);
    auto const want_every = host_duration_stats(every, every_key, quantiles);
    row_durations const all{r.start, r.end, {}, every_key, true};
    EXPECT_EQ(make_cpu_backend(2)->duration_stats(all, quantiles), want_every);
    twin_backend held_every(host_context{}, 0, "twin");
    held_every.hold(std::span(r.start)), held_every.hold(std::span(r.end));
    EXPECT_EQ(held_every.duration_stats(all, quantiles), want_every);
    EXPECT_EQ(held_every.context().transfers().upload_bytes,
              2 * r.start.size() * 8 + r.start.size() * 4 +
                  want_every.size() * (4 + 2 * quantiles.size()) * 8);
    twin_backend limited_every(host_context{}, 0, "twin", 1 + rng() % 100);
    limited_every.hold(std::span(r.start)), limited_every.hold(std::span(r.end));
    EXPECT_EQ(limited_every.duration_stats(all, quantiles), want_every);
  }
}

TEST(HeldColumns, UnionOfRowsChecksItsRows) {
  std::vector<std::int64_t> const s{0, 10}, e{5, 20};
  std::vector<std::size_t> const rows{0, 2};
  std::vector<group_id> const g{0, 0};
  twin_backend be(host_context{}, 0, "twin");
  EXPECT_THROW((void)be.union_of_rows({s, e, rows, g}), std::invalid_argument);
  std::vector<group_id> const short_group{0};
  std::vector<std::size_t> const ok_rows{0, 1};
  EXPECT_THROW((void)be.union_of_rows({s, e, ok_rows, short_group}), std::invalid_argument);
}

// ---- a whole job on a real trace ----------------------------------------------------------

bool read_some_trace(std::filesystem::path const& dir, event_table& table, std::string& path) {
  for (auto const& p : test::trace_files(dir)) {
    if (test::read_trace(p, table) && table.size() >= 1000) {
      path = p.string();
      return true;
    }
    table = event_table{};
  }
  return false;
}

/// The uploads whose host bytes overlap `column`'s.
template <class T>
std::size_t uploads_of(host_context const& ctx, std::span<T const> column) {
  auto const bytes = std::as_bytes(column);
  auto const* lo = reinterpret_cast<unsigned char const*>(bytes.data());
  auto const* hi = lo + bytes.size();
  std::size_t n = 0;
  for (auto const& u : ctx.upload_sources()) n += u.data < hi && lo < u.data + u.bytes ? 1 : 0;
  return n;
}

/// Each column of the table and the model a job reads goes up at most once.
void expect_each_column_once(host_context const& ctx, trace_model const& model,
                             std::string const& job) {
  auto const& t = model.table();
  EXPECT_LE(uploads_of(ctx, std::span(t.start_ns)), 1u) << job << ": start";
  EXPECT_LE(uploads_of(ctx, std::span(t.end_ns)), 1u) << job << ": end";
  EXPECT_LE(uploads_of(ctx, std::span(t.kind)), 1u) << job << ": kind";
  EXPECT_LE(uploads_of(ctx, std::span(t.name)), 1u) << job << ": name";
  EXPECT_LE(uploads_of(ctx, model.device_group()), 1u) << job << ": device group";
  EXPECT_LE(uploads_of(ctx, model.communication_names()), 1u) << job << ": communication flags";
  auto const& c = ctx.transfers();
  std::cout << job << " of " << t.size() << " rows: " << c.uploads << " uploads (" << c.upload_bytes
            << " bytes), " << c.downloads << " downloads, " << c.host_syncs
            << " host synchronisations\n";
}

std::string every_overview_table(job_session const& session) {
  std::string out;
  for (auto view : {job_view::paddle, job_view::tensorboard}) {
    std::ostringstream json;
    output::find_writer("json")(job_table_results(select_job_tables("all", view), session, {}), "",
                                json, {});
    out += json.str();
  }
  return out;
}

TEST(HeldColumns, EachColumnGoesUpOncePerJob) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  std::string path;
  ASSERT_TRUE(read_some_trace(dir, table, path)) << "no readable trace in " << dir;
  trace_model const model(table);
  auto cpu = make_cpu_backend(1);
  summary_options so;
  so.top = 0;
  diagnose_options const o;
  {
    twin_backend be(host_context{}, 0, "twin");
    (void)compute_summary(job_session(model, be, summary_needs(so)), so);
    expect_each_column_once(be.context(), model, "summary");
  }
  {
    twin_backend be(host_context{}, 0, "twin");
    (void)diagnose(job_session(model, be, diagnose_needs(o)), o);
    expect_each_column_once(be.context(), model, "diagnose");
  }
  {
    twin_backend be(host_context{}, 0, "twin");
    job_session const session(model, be, {});
    job_session const on_cpu(model, *cpu, {});
    EXPECT_EQ(every_overview_table(session), every_overview_table(on_cpu));
    expect_each_column_once(be.context(), model, "overview (every table)");
  }
}

/// The unions the job tables read (steps, kernels per GPU, data loaders) read the held start and
/// end columns: besides those, once, only each union's rows and groups go up.
TEST(HeldColumns, TheTableUnionsSendRowsNotIntervals) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  std::string path;
  ASSERT_TRUE(read_some_trace(dir, table, path)) << "no readable trace in " << dir;
  trace_model const model(table);
  twin_backend be(host_context{}, 0, "twin");
  job_session const session(model, be, {});
  auto const cpu = make_cpu_backend(1);
  job_session const on_cpu(model, *cpu, {});
  std::vector<bool> step_row(table.size(), false);
  for (std::size_t r = 0; r < model.ranks().size(); ++r)
    for (auto const i : model.steps(r)) step_row[i] = true;
  std::size_t rows = 0;  // the rows the four unions take, counted here from their definitions
  for (std::size_t i = 0; i < table.size(); ++i) {
    bool const kernel = table.kind[i] == event_kind::kernel;
    rows += step_row[i] ? 1 : 0;
    rows += kernel && model.kept(i) ? 1 : 0;
    rows += kernel && table.device[i] >= 0 ? 1 : 0;
    rows += table.kind[i] == event_kind::data_loader && table.device[i] < 0 ? 1 : 0;
  }
  for (auto which : {table_union::steps_by_rank, table_union::kept_kernels_by_rank_device,
                     table_union::kernels_by_input_device, table_union::data_loaders_by_rank})
    expect_same(session.unions(which), on_cpu.unions(which), "table union");
  auto const& c = be.context().transfers();
  bool const any = rows > 0;
  EXPECT_EQ(c.upload_bytes, (any ? table.size() * 16 : 0) + rows * (8 + 4));
  EXPECT_LE(uploads_of(be.context(), std::span<std::int64_t const>(table.start_ns)), 1u);
  EXPECT_LE(uploads_of(be.context(), std::span<std::int64_t const>(table.end_ns)), 1u);
}

/// The fleet's job (analyze_job: summary, diagnosis, per-rank kernel statistics) on the twin
/// makes exactly the transfers of the same analyses on one job session over the same table, in
/// which each column goes up once.
TEST(HeldColumns, AFleetJobUploadsEachColumnOnce) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  std::string path;
  ASSERT_TRUE(read_some_trace(dir, table, path)) << "no readable trace in " << dir;
  fleet::analyze_options o;
  host_context in_job;  // its copies, which the job's backend gets, share its counters
  o.make_backend = [&](event_table const&, fleet::backend_share) -> std::unique_ptr<backend> {
    return std::make_unique<twin_backend>(in_job, 0, "twin");
  };
  fleet::job_spec const spec{path, "", {path}};
  auto const job = fleet::analyze_job(spec, {fleet::identify(path)}, o);
  ASSERT_TRUE(job.any_ok());

  host_context by_hand;
  {
    twin_backend be(by_hand, 0, "twin");
    trace_model const model(table, {o.comm_pattern});
    summary_options so;
    so.min_gap_ns = o.diagnosis.min_gap_ns;
    so.top = 0;
    job_session const session(model, be, summary_needs(so) | diagnose_needs(o.diagnosis));
    (void)compute_summary(session, so);
    (void)diagnose(session, o.diagnosis);
    (void)compute_kernel_stats(model, be, {kernel_grouping::rank, false, {}});
    expect_each_column_once(by_hand, model, "a fleet job");
  }
  EXPECT_EQ(in_job.transfers(), by_hand.transfers());
}

}  // namespace
}  // namespace tracesweep::cuda_detail
