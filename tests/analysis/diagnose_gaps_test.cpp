// SPDX-License-Identifier: Apache-2.0
// diagnose: the gaps and their causes. Hand-built scenarios, one per cause, with the cover of
// every cause worked out by hand; then random tables against a per-nanosecond oracle that applies
// the rules of docs/diagnose.md to each instant of each gap on its own.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/output/result_table.hpp>

#include "support/table_builder.hpp"

namespace ts = tracesweep;
using ts::event_kind;
using ts::idle_cause;

namespace diagnose_gaps_test {

constexpr std::int64_t thread = 7;

/// A launch call [s, s+10) on the thread and the kernel it launches on device 0.
void launch(ts::test::table_builder& b, std::int64_t s, std::int64_t k_start, std::int64_t k_end,
            std::int64_t& corr, std::string_view name = "cudaLaunchKernel") {
  ++corr;
  b.host(event_kind::api_call, s, s + 10, thread, 0, corr, name);
  b.device(event_kind::kernel, k_start, k_end, 0, 1, 0, corr, "k");
}

ts::diagnosis run(ts::event_table const& t, std::int64_t min_gap = 50) {
  ts::trace_model const model(t);
  auto be = ts::make_cpu_backend(1);
  ts::diagnose_options o;
  o.min_gap_ns = min_gap;
  o.timeline_bins = 4;
  return ts::diagnose(model, *be, o);
}

std::int64_t cover(ts::gap_finding const& g, idle_cause c) {
  return g.cover[static_cast<std::size_t>(c)];
}

TEST(DiagnoseGaps, DataLoaderGap) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  launch(b, 0, 20, 100, corr);
  b.host(event_kind::data_loader, 110, 400, thread, 0, -1, "enumerate(DataLoader)#x.__next__");
  launch(b, 400, 420, 500, corr);
  auto const d = run(b.done());
  ASSERT_EQ(d.gaps.size(), 1u);
  auto const& g = d.gaps[0];
  EXPECT_EQ(g.start_ns, 100);
  EXPECT_EQ(g.end_ns, 420);
  EXPECT_EQ(g.cause, idle_cause::data_loading);
  EXPECT_EQ(cover(g, idle_cause::data_loading), 290);
  EXPECT_EQ(cover(g, idle_cause::launch), 10);
  EXPECT_EQ(cover(g, idle_cause::unknown), 20);
  auto const before = d.describe(g.before), after = d.describe(g.after);
  ASSERT_TRUE(before && after);
  EXPECT_EQ(before->end_ns, 100);
  EXPECT_EQ(after->start_ns, 420);
  auto const host = d.host_of(g);
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(d.describe(host[0])->name, "enumerate(DataLoader)#x.__next__");
}

/// The names of a generated gaps row: host rows, then before and after ("" when none).
std::vector<std::string> context_names(ts::output::row const& r,
                                       ts::output::result_table const& t) {
  std::vector<std::string> names;
  for (auto const* col : {"host", "before", "after"}) {
    auto const j = static_cast<std::size_t>(
        std::find_if(t.columns.begin(), t.columns.end(), [&](auto& c) { return c.name == col; }) -
        t.columns.begin());
    auto const* nested = std::get_if<std::shared_ptr<ts::output::result_table const>>(&r.cells[j]);
    if (nested == nullptr) {
      names.emplace_back();
      continue;
    }
    for (auto const& e : (*nested)->rows) names.push_back(std::get<std::string>(e.cells[0]));
  }
  return names;
}

TEST(DiagnoseGaps, ListedRowsNameTheirContextWhetherTheWriterKeepsThemOrNot) {
  // Three gaps of different context; the gaps table names each row's rows when it makes it,
  // refilling its nested tables only when the previous row's were let go.
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  launch(b, 0, 20, 100, corr, "cudaLaunchKernel");
  b.host(event_kind::data_loader, 110, 400, thread, 0, -1, "enumerate(DataLoader)#x.__next__");
  launch(b, 400, 420, 500, corr, "cudaLaunchKernelExC");
  b.host(event_kind::cpu_op, 510, 700, thread, 0, -1, "aten::mm");
  b.host(event_kind::cpu_op, 520, 690, thread, 0, -1, "aten::addmm");
  launch(b, 700, 720, 800, corr, "cuLaunchKernel");
  launch(b, 1500, 1520, 1600, corr, "cudaLaunchKernel");
  auto const d = run(b.done());
  ASSERT_EQ(d.gaps.size(), 3u);
  auto const set = ts::diagnose_results(d);
  auto const table = std::find_if(set.tables.begin(), set.tables.end(),
                                  [](auto const& t) { return t.name == "gaps" && t.generate; });
  ASSERT_NE(table, set.tables.end());
  std::vector<ts::output::row> kept;
  std::vector<std::vector<std::string>> streamed;
  for (std::size_t i = 0; i < d.gaps.size(); ++i) {
    streamed.push_back(context_names(table->generate(i), *table));
    kept.push_back(table->generate(i));
  }
  for (std::size_t i = 0; i < d.gaps.size(); ++i) {
    auto const& g = d.gaps[i];
    std::vector<std::string> expected;
    for (auto const row : d.host_of(g)) expected.push_back(d.describe(row)->name);
    for (auto const row : {g.before, g.after})
      expected.push_back(row < 0 ? std::string() : d.describe(row)->name);
    EXPECT_EQ(streamed[i], expected) << i;
    EXPECT_EQ(context_names(kept[i], *table), expected) << i;
  }
  // Longest first, each with its own host rows: the last launch alone, the data loader, the two
  // ops (most overlap first) and a launch.
  EXPECT_EQ(streamed[0], (std::vector<std::string>{"cudaLaunchKernel", "k", "k"}));
  EXPECT_EQ(streamed[1].front(), "enumerate(DataLoader)#x.__next__");
  EXPECT_EQ(streamed[2],
            (std::vector<std::string>{"aten::mm", "aten::addmm", "cuLaunchKernel", "k", "k"}));
}

TEST(DiagnoseGaps, WorkAfterASyncCountsAsSync) {
  ts::test::table_builder b;
  b.input("nsys-sqlite");
  std::int64_t corr = 0;
  launch(b, 0, 20, 200, corr);
  b.host(event_kind::api_call, 50, 201, thread, 0, 99, "cudaStreamSynchronize_v3020");
  b.host(event_kind::cpu_op, 205, 500, thread, 0, -1, "log_metrics");
  launch(b, 510, 530, 600, corr);
  auto const d = run(b.done());
  ASSERT_EQ(d.gaps.size(), 1u);
  auto const& g = d.gaps[0];
  EXPECT_EQ(g.cause, idle_cause::sync);
  // [200, 201) in the call, [201, 510) after it until the next launch, [510, 520) launching,
  // [520, 530) nothing.
  EXPECT_EQ(cover(g, idle_cause::sync), 310);
  EXPECT_EQ(cover(g, idle_cause::launch), 10);
  EXPECT_EQ(cover(g, idle_cause::unknown), 10);
  EXPECT_EQ(cover(g, idle_cause::host_compute), 0);
}

TEST(DiagnoseGaps, EachHostClassIsItsCause) {
  struct scenario {
    event_kind kind;
    char const* name;
    bool launches_inside;
    idle_cause expected;
  };
  scenario const cases[] = {
      {event_kind::cpu_op, "aten::item", false, idle_cause::sync},
      {event_kind::api_call, "cudaMemcpy", false, idle_cause::memcpy},
      {event_kind::cpu_op, "nccl:all_reduce", false, idle_cause::communication},
      {event_kind::user_range, "MyDataLoader", false, idle_cause::data_loading},
      {event_kind::cpu_op, "aten::nonzero_host_side", false, idle_cause::host_compute},
      {event_kind::cpu_op, "aten::conv2d", true, idle_cause::launch},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.name);
    ts::test::table_builder b;
    b.input("kineto-json");
    std::int64_t corr = 0;
    launch(b, 0, 20, 100, corr);
    // The op covers the whole gap [100, 1020); with launches_inside, the next launch lies in it.
    b.host(c.kind, 90, c.launches_inside ? 1030 : 1000, thread, 0, -1, c.name);
    launch(b, 1005, 1020, 1100, corr);
    auto const d = run(b.done());
    ASSERT_EQ(d.gaps.size(), 1u);
    EXPECT_EQ(d.gaps[0].cause, c.expected);
  }
}

TEST(DiagnoseGaps, StepsAreContextNeverCause) {
  ts::test::table_builder b;
  b.input("kineto-json");
  std::int64_t corr = 0;
  b.host(event_kind::profiler_step, 0, 2000, thread, 0, -1, "ProfilerStep#0");
  launch(b, 0, 20, 100, corr);
  launch(b, 900, 920, 1000, corr);
  auto const d = run(b.done());
  ASSERT_EQ(d.gaps.size(), 1u);
  EXPECT_EQ(d.gaps[0].cause, idle_cause::unknown);
  auto const host = d.host_of(d.gaps[0]);
  EXPECT_TRUE(host.size() == 1 && d.describe(host[0])->name == "cudaLaunchKernel");
}

// ---- random tables against a per-nanosecond oracle -------------------------------------------

struct host_row {
  event_kind kind;
  std::string name;
  std::int64_t s, e;
  std::size_t row;
};

/// The cause at instant `t`, from the rules alone.
idle_cause oracle_at(std::int64_t t, std::vector<host_row> const& host,
                     std::vector<std::int64_t> const& launch_starts) {
  auto cls = [&](host_row const& h) -> int {
    // 0 sync, 1 memcpy, 2 communication, 3 data loading, 4 launching, 5 compute, 6 step
    if (h.kind == event_kind::profiler_step) return 6;
    if (h.name == "cudaStreamSynchronize" || h.name == "aten::item") return 0;
    if (h.name == "cudaMemcpyAsync") return 1;
    if (h.name == "ncclAllReduce") return 2;
    if (h.name == "DataLoader.__next__") return 3;
    if (h.kind == event_kind::api_call) return 4;
    for (auto const l : launch_starts)
      if (h.s <= l && l <= h.e) return 4;
    return 5;
  };
  int best = 99;
  for (auto const& h : host)
    if (h.s <= t && t < h.e && cls(h) < 4) best = std::min(best, cls(h));
  if (best < 4)
    return std::array{idle_cause::sync, idle_cause::memcpy, idle_cause::communication,
                      idle_cause::data_loading}[static_cast<std::size_t>(best)];
  for (auto const& h : host) {
    if (cls(h) != 0 || h.e > t) continue;
    bool launched = false;
    for (auto const l : launch_starts) launched = launched || (h.e <= l && l <= t);
    if (!launched) return idle_cause::sync;
  }
  host_row const* inner = nullptr;
  for (auto const& h : host) {
    if (!(h.s <= t && t < h.e) || cls(h) < 4 || cls(h) == 6) continue;
    if (!inner || h.s > inner->s ||
        (h.s == inner->s && (h.e < inner->e || (h.e == inner->e && h.row > inner->row))))
      inner = &h;
  }
  if (inner) return cls(*inner) == 4 ? idle_cause::launch : idle_cause::host_compute;
  return idle_cause::unknown;
}

/// Random tables, times multiplied by `scale` (large scales make host rows of several duration
/// classes, up to tens of ms); the oracle is evaluated per elementary segment (between any two
/// consecutive endpoints nothing the rules read changes), per nanosecond at scale 1. With
/// `filler`, that many rows of another thread, long after the rest, come before each row: the
/// thread's rows then lie in several of the chunks the host index reads the table in.
void random_tables_match_the_oracle(std::int64_t scale, std::uint64_t seed, int rounds = 300,
                                    int filler = 0) {
  std::mt19937_64 rng(seed);
  auto between = [&](std::int64_t lo, std::int64_t hi) {
    return scale * std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  auto pick = [&](std::int64_t n) {
    return std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng);
  };
  char const* const names[] = {
      "cudaStreamSynchronize", "aten::item", "cudaMemcpyAsync", "ncclAllReduce",
      "DataLoader.__next__",   "aten::add",  "forward",         "cudaEventQuery"};
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    ts::test::table_builder b;
    b.input("kineto-json");
    auto pad = [&] {
      for (int f = 0; f < filler; ++f)
        b.host(event_kind::cpu_op, 1'000'000 * scale + f, 1'000'000 * scale + f + 1, thread + 1, 0,
               -1, "filler");
    };
    std::vector<host_row> host;
    std::vector<std::int64_t> launches;
    std::int64_t corr = 0;
    // Kernels launched at random times, each running a little later.
    for (int k = 0; k < 12; ++k) {
      std::int64_t const s = between(0, 1500);
      ++corr;
      pad();
      auto const r =
          b.host(event_kind::api_call, s, s + between(1, 8), thread, 0, corr, "cudaLaunchKernel");
      host.push_back({event_kind::api_call, "cudaLaunchKernel", s, b.table.end_ns[r], r});
      launches.push_back(s);
      std::int64_t const ks = s + between(2, 60);
      b.device(event_kind::kernel, ks, ks + between(1, 120), 0, 1, 0, corr, "k");
    }
    for (int h = 0; h < 14; ++h) {
      auto const* name = names[pick(8)];
      auto const kind = std::string_view(name).starts_with("cuda") || name[0] == 'n'
                            ? event_kind::api_call
                            : event_kind::cpu_op;
      std::int64_t const s = between(0, 1500);
      pad();
      auto const r = b.host(kind, s, s + between(1, 300), thread, 0, -1, name);
      host.push_back({kind, name, s, b.table.end_ns[r], r});
    }
    if (round % 3 == 0) {
      auto const r =
          b.host(event_kind::profiler_step, 0, 1700 * scale, thread, 0, -1, "ProfilerStep#1");
      host.push_back({event_kind::profiler_step, "ProfilerStep#1", 0, 1700 * scale, r});
    }
    auto const& t = b.done();
    ts::model_options mo;
    mo.host_comm_pattern = "nccl";
    ts::trace_model const model(t, mo);
    auto be = ts::make_cpu_backend(1);
    ts::diagnose_options o;
    o.min_gap_ns = scale;
    o.top = 0;
    o.timeline_bins = 2;
    o.data_loader_pattern = "DataLoader";
    auto const d = ts::diagnose(model, *be, o);
    std::sort(launches.begin(), launches.end());
    std::vector<std::int64_t> points;
    for (auto const& h : host) points.push_back(h.s), points.push_back(h.e);
    for (auto const& g : d.gaps) points.push_back(g.start_ns), points.push_back(g.end_ns);
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (auto const& g : d.gaps) {
      ts::idle_by_cause expected{};
      auto k = std::lower_bound(points.begin(), points.end(), g.start_ns);
      for (; k + 1 != points.end() && *k < g.end_ns; ++k) {
        std::int64_t const step = scale == 1 ? 1 : *(k + 1) - *k;
        for (std::int64_t x = *k; x < *(k + 1); x += step)
          expected[static_cast<std::size_t>(oracle_at(x, host, launches))] +=
              std::min(step, *(k + 1) - x);
      }
      EXPECT_EQ(g.cover, expected) << "gap [" << g.start_ns << ", " << g.end_ns << ")";
    }
  }
}

TEST(DiagnoseGaps, RandomTablesMatchThePerNanosecondOracle) {
  random_tables_match_the_oracle(1, 12345);
}

TEST(DiagnoseGaps, RandomTablesWithLongHostRowsMatchTheOracle) {
  random_tables_match_the_oracle(40'000, 777);
}

TEST(DiagnoseGaps, RandomTablesReadInManyChunksMatchTheOracle) {
  random_tables_match_the_oracle(1, 4242, 3, 12'000);  // 26 rows × 12 000: over 300 000 rows
}

}  // namespace diagnose_gaps_test
