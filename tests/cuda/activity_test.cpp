// SPDX-License-Identifier: Apache-2.0
// backend::device_activity on the device algorithms compiled by g++ (host twin context):
// device-resident against the CPU backend on random tables; the exact host↔device transfers of
// a whole summary (one upload per column read, one download per result table); the fallback
// to the chunked primitives under a memory limit; and a device error injected at every
// allocation of a summary, which must surface as tracesweep::device_error.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>
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

/// Limits below are this much above the rows' budget: the twin's fixed temporary storage.
constexpr std::size_t reserve = host_context::temporary_reserve;

/// Columns of a random table in the shape of an activity_request.
struct random_table {
  std::vector<event_kind> kind;
  std::vector<std::int64_t> start, end;
  std::vector<group_id> device;
  std::vector<std::uint32_t> name;
  std::vector<std::uint8_t> communication;
  std::vector<std::int64_t> stream;
  std::size_t devices = 0;
  [[nodiscard]] activity_request request(std::int64_t min_gap, std::size_t top) const {
    return {start, end, kind, device, name, communication, devices, min_gap, top};
  }
};

random_table make_table(std::mt19937_64& rng, std::size_t n, std::size_t devices) {
  random_table t;
  t.devices = devices;
  std::size_t const names = 1 + rng() % 12;
  // Fewer flags than names: ids past the end are computation.
  for (std::size_t i = 0; i + 2 < names; ++i) t.communication.push_back(rng() % 3 == 0);
  event_kind const kinds[] = {event_kind::kernel, event_kind::memcpy, event_kind::memset,
                              event_kind::api_call, event_kind::cpu_op};
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t const s = 1'000'000 + static_cast<std::int64_t>(rng() % 20'000);
    std::int64_t const len = rng() % 7 == 0 ? 0 : static_cast<std::int64_t>(rng() % 400);
    event_kind const k = kinds[rng() % 5];
    t.start.push_back(s);
    t.end.push_back(s + len);
    t.kind.push_back(k);
    t.device.push_back(is_device_activity(k) ? static_cast<group_id>(rng() % devices)
                                             : static_cast<group_id>(UINT32_MAX));
    t.name.push_back(static_cast<std::uint32_t>(rng() % names));
    t.stream.push_back(static_cast<std::int64_t>(rng() % 3));
  }
  return t;
}

/// The table's rows in start order, as a profiler lists them: each stream's too.
random_table in_start_order(random_table t) {
  std::vector<std::size_t> order(t.start.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t.start[a] < t.start[b]; });
  auto const permuted = [&](auto const& column) {
    std::remove_cvref_t<decltype(column)> out;
    for (auto const i : order) out.push_back(column[i]);
    return out;
  };
  t.kind = permuted(t.kind), t.start = permuted(t.start), t.end = permuted(t.end);
  t.device = permuted(t.device), t.name = permuted(t.name), t.stream = permuted(t.stream);
  return t;
}

void expect_same(interval_union const& a, interval_union const& b, char const* which) {
  EXPECT_EQ(a.group, b.group) << which;
  EXPECT_EQ(a.start, b.start) << which;
  EXPECT_EQ(a.end, b.end) << which;
}

void expect_same(activity_result const& a, activity_result const& b) {
  EXPECT_EQ(a.devices, b.devices);
  EXPECT_EQ(a.gaps, b.gaps);
  EXPECT_EQ(a.kernels, b.kernels);
  expect_same(a.activity_union, b.activity_union, "activity union");
  expect_same(a.kernel_union, b.kernel_union, "kernel union");
  expect_same(a.communication_union, b.communication_union, "communication union");
  expect_same(a.computation_union, b.computation_union, "computation union");
}

TEST(DeviceActivity, ResidentMatchesCpuAndChunkedOnRandomTables) {
  std::mt19937_64 rng(11);
  auto cpu = make_cpu_backend(2);
  int with_unions = 0;  // trials whose kept unions are all non-empty
  for (int trial = 0; trial < 40; ++trial) {
    std::size_t const devices = 1 + rng() % 5;  // some devices may have no rows
    auto const made = make_table(rng, rng() % 800, devices);
    auto const t = trial % 3 == 0 ? in_start_order(made) : made;
    std::int64_t const min_gap = static_cast<std::int64_t>(rng() % 50);
    std::size_t const top = rng() % 4;
    auto request = t.request(min_gap, top);
    request.keep_unions = trial % 2 == 1;  // the unions come back from the device too
    auto const expect = cpu->device_activity(request);
    auto by_stream = request;  // the CPU merges each stream's rows where they come in order
    by_stream.stream = t.stream;
    expect_same(expect, cpu->device_activity(by_stream));
    if (request.keep_unions && !expect.communication_union.group.empty() &&
        !expect.computation_union.group.empty())
      ++with_unions;

    twin_backend resident(host_context{}, 0, "twin");
    ASSERT_TRUE(resident.activity_fits(request));
    expect_same(expect, resident.device_activity(request));
    EXPECT_EQ(resident.chunks_run(), 1u);
    EXPECT_LE(resident.context().memory().peak,
              resident_activity_bytes(t.start.size(), t.communication.size(), devices));
    EXPECT_EQ(resident.context().memory().current, 0u);

    twin_backend chunked(host_context{}, reserve + (4 << 10), "twin");
    ASSERT_FALSE(chunked.activity_fits(request));
    expect_same(expect, chunked.device_activity(request));
    EXPECT_LE(chunked.context().memory().peak, reserve + (4 << 10));
  }
  EXPECT_GE(with_unions, 10);
}

/// Where nearly every row is a kernel and no other row shares a kernel's name, the CPU takes the
/// kernels' statistics over every row and drops the other names: the same as the device's, which
/// takes the kernels only; and where a memcpy shares a kernel's name, from the kernels' list.
TEST(DeviceActivity, KernelStatisticsOverEveryRowEqualTheKernelsOwn) {
  std::mt19937_64 rng(15);
  auto cpu = make_cpu_backend(2);
  for (int trial = 0; trial < 20; ++trial) {
    auto t = make_table(rng, 400 + rng() % 400, 3);
    auto const names = static_cast<std::uint32_t>(t.communication.size() + 2);
    for (std::size_t i = 0; i < t.kind.size(); ++i) {
      bool const other = rng() % 12 == 0;
      t.kind[i] =
          other ? (rng() % 2 ? event_kind::memcpy : event_kind::api_call) : event_kind::kernel;
      if (!is_device_activity(t.kind[i]))
        t.device[i] = UINT32_MAX;
      else if (t.device[i] == UINT32_MAX)
        t.device[i] = 0;
      if (other) t.name[i] = names + static_cast<std::uint32_t>(rng() % 3);  // names of their own
    }
    if (trial % 2 == 1)  // a memcpy under a kernel's name: the kernels' list
      for (std::size_t i = 0; i < t.kind.size(); ++i)
        if (t.kind[i] == event_kind::memcpy) {
          t.name[i] = 0;
          break;
        }
    auto const request = t.request(0, 0);
    twin_backend twin(host_context{}, 0, "twin");
    auto const expect = twin.device_activity(request);
    ASSERT_FALSE(expect.kernels.empty());
    expect_same(expect, cpu->device_activity(request));
  }
}

/// More rows than one device pass may hold: composed from chunked primitives, equal to the CPU.
TEST(DeviceActivity, RowLimitFallsBackToChunksAndEqualsCpu) {
  std::mt19937_64 rng(14);
  auto cpu = make_cpu_backend(2);
  auto const t = make_table(rng, 800, 3);
  auto const request = t.request(5, 2);
  twin_backend be(host_context{}, 0, "twin", 64);
  ASSERT_FALSE(be.activity_fits(request));
  expect_same(cpu->device_activity(request), be.device_activity(request));
  EXPECT_GT(be.chunks_run(), 800u / 64);
  twin_backend exact(host_context{}, 0, "twin", 800);
  EXPECT_TRUE(exact.activity_fits(request));  // the limit itself still fits
}

TEST(DeviceActivity, EmptyRequestGivesEmptyDevices) {
  twin_backend be(host_context{}, 0, "twin");
  activity_request r;
  r.device_count = 2;
  auto const got = be.device_activity(r);
  ASSERT_EQ(got.devices.size(), 2u);
  EXPECT_EQ(got.devices[0], device_activity_row{});
  EXPECT_TRUE(got.gaps.empty());
  EXPECT_TRUE(got.kernels.empty());
}

TEST(DeviceActivity, PreconditionsAreCheckedOnceForEveryBackend) {
  std::mt19937_64 rng(12);
  auto t = make_table(rng, 50, 2);
  auto cpu = make_cpu_backend(1);
  twin_backend twin(host_context{}, 0, "twin");
  for (backend* be : {cpu.get(), static_cast<backend*>(&twin)}) {
    auto r = t.request(0, 0);
    r.name = r.name.first(10);
    EXPECT_THROW((void)be->device_activity(r), std::invalid_argument) << be->name();
    r = t.request(0, 0);
    r.stream = std::span(t.stream).first(10);
    EXPECT_THROW((void)be->device_activity(r), std::invalid_argument) << be->name();
    auto bad = t;
    for (std::size_t i = 0; i < bad.kind.size(); ++i)
      if (is_device_activity(bad.kind[i])) bad.device[i] = 2;  // only 2 devices
    EXPECT_THROW((void)be->device_activity(bad.request(0, 0)), std::invalid_argument) << be->name();
  }
  EXPECT_EQ(twin.context().transfers(), host_context::transfer_counts{});
}

/// The first real trace of at least 1000 rows the readers accept.
bool read_some_trace(std::filesystem::path const& dir, event_table& table) {
  for (auto const& path : test::trace_files(dir)) {
    if (test::read_trace(path, table) && table.size() >= 1000) return true;
    table = event_table{};
  }
  return false;
}

/// A summary copies each column it reads up once and each result table down once.
TEST(DeviceActivity, SummaryTransfersAreOneUploadPerColumnAndOneDownloadPerResultTable) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  ASSERT_TRUE(read_some_trace(dir, table)) << "no readable trace in " << dir;
  trace_model const model(table);
  summary_options const options;
  twin_backend be(host_context{}, 0, "twin");
  auto const got = compute_summary(model, be, options);
  test::expect_same(compute_summary(model, *make_cpu_backend(0), options), got, "transfers");

  std::size_t const n = table.size();
  std::size_t const flags = model.communication_names().size();
  std::size_t const devices = model.devices().size();
  ASSERT_GT(devices, 0u);
  ASSERT_GT(got.kernels.size(), 0u);
  ASSERT_GT(got.gaps.size(), 0u);
  std::cout << "transfers of a summary of " << n << " rows, " << devices << " devices, "
            << got.gaps.size() << " gaps, " << got.kernels.size() << " kernel names\n";
  host_context::transfer_counts expect;
  // start, end (int64), kind (1 byte), device_group, name (uint32) per row; a flag per string.
  expect.uploads = 6;
  expect.upload_bytes = n * (8 + 8 + 1 + 4 + 4) + flags;
  // The per-device table (10 int64 per device), the gaps, the statistics per kernel name.
  expect.downloads = 3;
  expect.download_bytes = devices * 10 * sizeof(std::int64_t) + got.gaps.size() * sizeof(gap_row) +
                          got.kernels.size() * sizeof(stats_row);
  EXPECT_EQ(be.context().transfers().uploads, expect.uploads);
  EXPECT_EQ(be.context().transfers().upload_bytes, expect.upload_bytes);
  EXPECT_EQ(be.context().transfers().downloads, expect.downloads);
  EXPECT_EQ(be.context().transfers().download_bytes, expect.download_bytes);
  EXPECT_EQ(sizeof(gap_row), 24u);
  EXPECT_EQ(be.chunks_run(), 1u);

  // The same summary through the chunked primitives copies far more.
  twin_backend chunked(host_context{}, reserve + (64 << 10), "twin");
  test::expect_same(got, compute_summary(model, chunked, options), "chunked");
  EXPECT_GT(chunked.context().transfers().uploads, expect.uploads);
  EXPECT_GT(chunked.context().transfers().downloads, expect.downloads);
}

/// A fleet job's summary and diagnosis on one job session over the twin: each event column goes
/// up once, only results (and the device order, which the diagnosis reads) come down, and the
/// host synchronisations stay within the bound docs/architecture.md states: one device_activity
/// (the figure of the test below) plus one sort.
TEST(DeviceActivity, AJobSessionUploadsEachColumnOnceForTheSummaryAndTheDiagnosis) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  ASSERT_TRUE(read_some_trace(dir, table)) << "no readable trace in " << dir;
  trace_model const model(table);
  summary_options so;
  so.top = 0;
  diagnose_options o;
  twin_backend be(host_context{}, 0, "twin");
  job_session const session(model, be, summary_needs(so) | diagnose_needs(o));
  auto const s = compute_summary(session, so);
  auto const d = diagnose(session, o);
  auto cpu = make_cpu_backend(1);
  test::expect_same(compute_summary(model, *cpu, so), s, "job session on the twin");
  EXPECT_EQ(diagnose_results(d).tables.size(),
            diagnose_results(diagnose(model, *cpu, o)).tables.size());

  auto const& c = be.context().transfers();
  std::size_t const n = table.size(), device_rows = session.device_order().rows.size();
  std::size_t const flags = model.communication_names().size();
  // The denominators the sync shares read, when there are syncs and steps: one union of the
  // steps' rows (the start and end columns are held, already up) and rank index, down as group,
  // start and end.
  std::size_t steps = 0;
  for (std::size_t r = 0; r < model.ranks().size(); ++r) steps += model.steps(r).size();
  std::size_t const denominators = !d.sync.empty() && steps > 0 ? 1 : 0;
  // The device order is sorted by the backend only where a device's rows come in more than 16
  // ascending runs of starts; fewer (an nsys export: a run per table) are merged on the host.
  std::vector<std::size_t> runs(model.devices().size(), 1);
  std::vector<std::int64_t> last(runs.size(), std::numeric_limits<std::int64_t>::min());
  for (std::size_t i = 0; i < n; ++i)
    if (auto const g = model.device_group()[i]; g != no_device)
      runs[g] += table.start_ns[i] < last[g] ? 1 : 0, last[g] = table.start_ns[i];
  std::size_t const sorted = *std::max_element(runs.begin(), runs.end()) > 16 ? 1 : 0;
  // device_activity: start, end, kind, device_group, name and the flags, once each; the sort of
  // the device order: its keys and row numbers.
  EXPECT_EQ(c.uploads, 6u + 2 * sorted + 2 * denominators);
  EXPECT_EQ(c.upload_bytes, n * (8 + 8 + 1 + 4 + 4) + flags + sorted * device_rows * (8 + 4) +
                                denominators * steps * (8 + 4));
  // The per-device table, the gaps, the kernel statistics, the three unions (group, start, end
  // each); the sorted keys and rows.
  EXPECT_EQ(c.downloads, 3u + 9 + 2 * sorted + 3 * denominators);
  std::cout << "device order " << (sorted ? "sorted by the backend" : "merged on the host") << "\n";
  std::cout << "a job session (summary + diagnose) of " << n << " rows: " << c.uploads
            << " uploads, " << c.downloads << " downloads, " << c.host_syncs
            << " host synchronisations\n";
  EXPECT_LE(c.host_syncs, 32u + 3 * denominators);
}

/// Every overview table (Paddle's and TensorBoard's) of one job session over the twin: the same
/// tables as on the CPU backend, and the transfers and host synchronisations within the bound
/// docs/architecture.md states for `overview --table all` (each primitive's inputs up once, its
/// result down once).
TEST(DeviceActivity, AnOverviewOfEveryTableStaysWithinItsTransferBound) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  event_table table;
  ASSERT_TRUE(read_some_trace(dir, table)) << "no readable trace in " << dir;
  trace_model const model(table);
  auto const written = [&](backend& be) {
    job_session const session(model, be, {});
    std::string out;
    for (auto view : {job_view::paddle, job_view::tensorboard}) {
      auto const tables = select_job_tables("all", view);
      std::ostringstream json;
      output::find_writer("json")(job_table_results(tables, session, {}), "", json, {});
      out += json.str();
    }
    return out;
  };
  twin_backend be(host_context{}, 0, "twin");
  auto const on_twin = written(be);
  auto cpu = make_cpu_backend(1);
  EXPECT_EQ(on_twin, written(*cpu));
  auto const& c = be.context().transfers();
  std::cout << "overview (every table) of " << table.size() << " rows: " << c.uploads
            << " uploads, " << c.downloads << " downloads, " << c.host_syncs
            << " host synchronisations\n";
  // 13 tables: about 4 uploads, 4 downloads and 5 host synchronisations a table.
  EXPECT_LE(c.uploads, 49u);
  EXPECT_LE(c.downloads, 45u);
  EXPECT_LE(c.host_syncs, 66u);
}

/// One device_activity on a small table where every step has work: its exact uploads,
/// downloads and host synchronisations, the figures a GPU run would make.
TEST(DeviceActivity, OneCallMakesAKnownNumberOfCopiesAndHostSynchronisations) {
  random_table t;
  t.devices = 2;
  t.communication = {1, 0};  // name 0 communicates, name 1 computes
  struct row {
    event_kind kind;
    std::int64_t start, end;
    group_id device;
    std::uint32_t name;
  };
  row const rows[] = {
      {event_kind::kernel, 0, 10, 0, 1},          {event_kind::kernel, 5, 20, 0, 0},
      {event_kind::kernel, 30, 40, 1, 1},         {event_kind::kernel, 35, 50, 1, 0},
      {event_kind::memcpy, 60, 70, 0, 1},         {event_kind::memset, 80, 90, 1, 1},
      {event_kind::cpu_op, 0, 100, UINT32_MAX, 1}};
  for (auto const& r : rows) {
    t.kind.push_back(r.kind);
    t.start.push_back(r.start);
    t.end.push_back(r.end);
    t.device.push_back(r.device);
    t.name.push_back(r.name);
  }
  auto const request = t.request(0, 2);
  twin_backend be(host_context{}, 0, "twin");
  auto const got = be.device_activity(request);
  expect_same(make_cpu_backend(1)->device_activity(request), got);
  ASSERT_EQ(got.gaps.size(), 2u);     // a hole on each device
  ASSERT_EQ(got.kernels.size(), 2u);  // two kernel names
  auto const& c = be.context().transfers();
  EXPECT_EQ(c.uploads, 6u);  // start, end, kind, device, name, flags
  EXPECT_EQ(c.upload_bytes, 7u * (8 + 8 + 1 + 4 + 4) + 2);
  EXPECT_EQ(c.downloads, 3u);  // per-device table, gaps, kernel statistics
  EXPECT_EQ(c.download_bytes, 2 * 10 * 8 + 2 * sizeof(gap_row) + 2 * sizeof(stats_row));
  // Host synchronisations: row selection 2; windows 1; each of the four unions (activity,
  // device × kind, communication, computation) 3 (rows kept, ranges, segments) and its
  // lengths 1 (16); the two kernel selections 2; the overlap 1; holes 1, last ends 1, trailing
  // holes 1, top gaps 2 (ranges, rows kept); the statistics' ranges and moments 2; the one
  // synchronisation for the three downloads 1.
  std::cout << "one device_activity of " << t.start.size() << " rows: " << c.uploads << " uploads, "
            << c.downloads << " downloads, " << c.host_syncs << " host synchronisations\n";
  EXPECT_EQ(c.host_syncs, 2u + 1 + 16 + 2 + 1 + 1 + 1 + 1 + 2 + 2 + 1);

  // With keep_unions the three unions come back too, resident: 9 more downloads (group, start,
  // end of each), behind the same one synchronisation.
  auto with_unions = request;
  with_unions.keep_unions = true;
  twin_backend keeping(host_context{}, 0, "twin");
  auto const kept = keeping.device_activity(with_unions);
  expect_same(make_cpu_backend(1)->device_activity(with_unions), kept);
  EXPECT_EQ(kept.activity_union.size(), 4u);  // [0,20) [60,70) on device 0, [30,50) [80,90) on 1
  EXPECT_EQ(keeping.chunks_run(), 1u);
  EXPECT_EQ(keeping.context().transfers().uploads, 6u);
  EXPECT_EQ(keeping.context().transfers().downloads, 3u + 9);
  EXPECT_EQ(keeping.context().transfers().host_syncs, c.host_syncs);
}

/// An allocation failure at any point of a summary surfaces as device_error, one line, saying
/// how to chunk without naming a command-line flag, and leaves no device memory behind.
TEST(DeviceActivity, InjectedOutOfMemorySurfacesAsDeviceError) {
  std::mt19937_64 rng(13);
  event_table table;
  table.begin_input("twin.json", "synthetic");
  auto const comm = table.strings().intern("ncclAllReduce");
  auto const gemm = table.strings().intern("gemm");
  event_kind const kinds[] = {event_kind::kernel, event_kind::memcpy, event_kind::cpu_op};
  for (int i = 0; i < 300; ++i) {
    event e;
    e.start_ns = static_cast<std::int64_t>(rng() % 100'000'000);
    e.end_ns = e.start_ns + static_cast<std::int64_t>(rng() % 500'000);
    e.kind = kinds[rng() % 3];
    e.device = e.kind == event_kind::cpu_op ? -1 : static_cast<std::int32_t>(rng() % 2);
    e.stream = 7;
    e.name = rng() % 2 ? comm : gemm;
    table.append(e);
  }
  table.finish_input();
  trace_model const model(table);
  summary_options const options;

  // Device-resident (no limit) and through the chunked primitives (a small limit).
  for (std::size_t limit : {std::size_t{0}, reserve + (8 << 10)}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    twin_backend counting(host_context{}, limit, "twin");
    auto const reference = compute_summary(model, counting, options);
    std::size_t const allocations = counting.context().memory().allocations;
    ASSERT_GT(allocations, 20u);
    for (std::size_t after = 0; after < allocations; ++after) {
      SCOPED_TRACE("allocation " + std::to_string(after));
      twin_backend be(host_context{}, limit, "twin");
      be.context().fail_allocation_after(after);
      try {
        (void)compute_summary(model, be, options);
        ADD_FAILURE() << "no device_error";
      } catch (device_error const& e) {
        std::string const what = e.what();
        EXPECT_TRUE(e.out_of_memory());
        EXPECT_EQ(what.find('\n'), std::string::npos);
        EXPECT_NE(what.find("lower device memory limit"), std::string::npos) << what;
        EXPECT_EQ(what.find("--"), std::string::npos) << what;
      }
      EXPECT_EQ(be.context().memory().current, 0u);
    }
    twin_backend ok(host_context{}, limit, "twin");
    test::expect_same(reference, compute_summary(model, ok, options), "after the failures");
  }
  // A device_error is a runtime_error: callers that catch those keep working.
  static_assert(std::is_base_of_v<std::runtime_error, device_error>);
}

}  // namespace
}  // namespace tracesweep::cuda_detail
