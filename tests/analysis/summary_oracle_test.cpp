// SPDX-License-Identifier: Apache-2.0
// compute_summary against an obviously-correct oracle: every union, intersection and gap is
// measured over the elementary segments between consecutive distinct endpoints, each segment
// checked against every interval (quadratic, any timestamp range); kernel statistics come from
// sorting each name's durations.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>

#include "support/summary_compare.hpp"

namespace ts = tracesweep;

namespace summary_oracle_test {

struct iv {
  std::int64_t s, e;
};

/// Elementary segments of a window: [points[i], points[i+1]) with a "covered by set" flag.
struct coverage {
  std::vector<std::int64_t> points;
  std::vector<bool> covered;
};

coverage cover(std::vector<iv> const& set, std::vector<std::int64_t> points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  coverage c{points, {}};
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    bool hit = false;
    for (auto const& x : set)
      if (x.s <= points[i] && points[i + 1] <= x.e) hit = true;
    c.covered.push_back(hit);
  }
  return c;
}

std::vector<std::int64_t> endpoints(std::vector<std::vector<iv>> const& sets) {
  std::vector<std::int64_t> p;
  for (auto const& set : sets)
    for (auto const& x : set) p.push_back(x.s), p.push_back(x.e);
  return p;
}

std::int64_t covered_length(std::vector<iv> const& set) {
  auto const c = cover(set, endpoints({set}));
  std::int64_t total = 0;
  for (std::size_t i = 0; i < c.covered.size(); ++i)
    if (c.covered[i]) total += c.points[i + 1] - c.points[i];
  return total;
}

std::int64_t both_covered_length(std::vector<iv> const& a, std::vector<iv> const& b) {
  auto const p = endpoints({a, b});
  auto const ca = cover(a, p), cb = cover(b, p);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < ca.covered.size(); ++i)
    if (ca.covered[i] && cb.covered[i]) total += ca.points[i + 1] - ca.points[i];
  return total;
}

bool oracle_is_comm(std::string name) {
  for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name.find("nccl") != std::string::npos || name.find("rccl") != std::string::npos;
}

struct oracle_device {
  std::int32_t input, rank, device;
  std::vector<iv> all, kernel, memcpy, memset, comm, comp;
  std::int64_t kernels = 0;
};

/// The whole summary by brute force.
ts::summary oracle(ts::event_table const& t, ts::summary_options const& o,
                   bool (*is_comm)(std::string) = oracle_is_comm) {
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, oracle_device> devs;
  std::map<std::string, std::vector<std::int64_t>> durations;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto const k = t.kind[i];
    if (k != ts::event_kind::kernel && k != ts::event_kind::memcpy && k != ts::event_kind::memset)
      continue;
    auto& d = devs[{t.rank[i], t.device[i], t.input_of(i)}];
    d.input = t.input_of(i), d.rank = t.rank[i], d.device = t.device[i];
    iv const x{t.start_ns[i], t.end_ns[i]};
    d.all.push_back(x);
    if (k == ts::event_kind::kernel) {
      d.kernel.push_back(x);
      ++d.kernels;
      std::string const name(t.strings().at(t.name[i]));
      (is_comm(name) ? d.comm : d.comp).push_back(x);
      durations[name].push_back(x.e - x.s);
    }
    if (k == ts::event_kind::memcpy) d.memcpy.push_back(x);
    if (k == ts::event_kind::memset) d.memset.push_back(x);
  }
  ts::summary s;
  s.inputs = t.inputs();
  // The summary's ranks: those with GPU operations.
  std::map<std::int32_t, std::set<std::int32_t>> ranks;
  for (auto const& [key, d] : devs) ranks[d.input].insert(d.rank);
  for (std::size_t in = 0; in < s.inputs.size(); ++in) {
    auto const& r = ranks[static_cast<std::int32_t>(in)];
    s.inputs[in].ranks.assign(r.begin(), r.end());
  }
  for (auto const& [key, d] : devs) {
    ts::device_summary r;
    r.input = d.input, r.rank = d.rank, r.device = d.device;
    r.window_start_ns = d.all.front().s;
    r.window_end_ns = d.all.front().e;
    for (auto const& x : d.all)
      r.window_start_ns = std::min(r.window_start_ns, x.s),
      r.window_end_ns = std::max(r.window_end_ns, x.e);
    r.window_ns = r.window_end_ns - r.window_start_ns;
    r.busy_ns = covered_length(d.all);
    r.idle_ns = r.window_ns - r.busy_ns;
    r.utilization = r.window_ns ? double(r.busy_ns) / double(r.window_ns) : 0.0;
    r.kernel_ns = covered_length(d.kernel);
    r.memcpy_ns = covered_length(d.memcpy);
    r.memset_ns = covered_length(d.memset);
    r.communication_ns = covered_length(d.comm);
    r.computation_ns = covered_length(d.comp);
    r.overlap_ns = both_covered_length(d.comm, d.comp);
    r.kernel_count = d.kernels;
    s.devices.push_back(r);

    // Gaps: maximal runs of uncovered elementary segments inside the window.
    auto p = endpoints({d.all});
    auto const c = cover(d.all, p);
    std::vector<ts::gap_summary> gaps;
    for (std::size_t i = 0; i < c.covered.size();) {
      if (c.covered[i]) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < c.covered.size() && !c.covered[j]) ++j;
      std::int64_t const gs = c.points[i], ge = c.points[j];
      if (ge - gs >= o.min_gap_ns) gaps.push_back({d.input, d.rank, d.device, gs, ge, ge - gs});
      i = j;
    }
    std::sort(gaps.begin(), gaps.end(), [](auto const& a, auto const& b) {
      return a.duration_ns != b.duration_ns ? a.duration_ns > b.duration_ns
                                            : a.start_ns < b.start_ns;
    });
    if (o.top && gaps.size() > o.top) gaps.resize(o.top);
    s.gaps.insert(s.gaps.end(), gaps.begin(), gaps.end());
  }
  long double grand = 0;
  for (auto const& [name, v] : durations)
    for (auto x : v) grand += x;
  for (auto [name, v] : durations) {
    std::sort(v.begin(), v.end());
    ts::kernel_summary k;
    k.name = name;
    k.calls = static_cast<std::int64_t>(v.size());
    long double sum = 0;
    for (auto x : v) sum += x, k.total_ns += x;
    k.avg_ns = static_cast<double>(sum / v.size());
    k.median_ns = (double(v[(v.size() - 1) / 2]) + double(v[v.size() / 2])) / 2;
    k.min_ns = v.front();
    k.max_ns = v.back();
    long double ss = 0;
    for (auto x : v) ss += (x - sum / v.size()) * (x - sum / v.size());
    k.stddev_ns = v.size() > 1 ? static_cast<double>(std::sqrt(ss / (v.size() - 1))) : 0.0;
    k.share = grand > 0 ? static_cast<double>(sum / grand) : 0.0;
    s.kernels.push_back(k);
  }
  std::sort(s.kernels.begin(), s.kernels.end(), [](auto const& a, auto const& b) {
    return std::tie(b.total_ns, b.calls, a.name) < std::tie(a.total_ns, a.calls, b.name);
  });
  return s;
}

void expect_near_rel(double a, double b, char const* what) {
  double const tol = 1e-12 * std::max({1.0, std::fabs(a), std::fabs(b)});
  EXPECT_NEAR(a, b, tol) << what;
}

void expect_same(ts::summary const& got, ts::summary const& want) {
  using ts::test::summary_double;
  ts::test::expect_same_rows(got, want, [](summary_double f, double g, double w) {
    switch (f) {
      case summary_double::utilization:
        EXPECT_DOUBLE_EQ(g, w);
        EXPECT_GE(g, 0.0);
        EXPECT_LE(g, 1.0);
        break;
      case summary_double::median_ns:
        EXPECT_EQ(g, w);  // exact: halves of integers
        break;
      default:
        expect_near_rel(g, w, ts::test::field_name(f));
    }
  });
  ASSERT_EQ(got.inputs.size(), want.inputs.size());
  for (std::size_t i = 0; i < got.inputs.size(); ++i) {
    EXPECT_EQ(got.inputs[i].path, want.inputs[i].path);
    EXPECT_EQ(got.inputs[i].events, want.inputs[i].events);
    EXPECT_EQ(got.inputs[i].ranks, want.inputs[i].ranks);
    EXPECT_EQ(got.inputs[i].skipped, want.inputs[i].skipped);
  }
}

char const* const kernel_names[] = {
    "ampere_sgemm_128x64_tn",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "elementwise",
    "NCCL_kernel_upper",
    "void rcclKernel<float>(int)",
    "gemm, with comma",
    "ncc l not comm",
    "softmax",
};

/// A random table: 1-3 inputs, ranks 0-2, devices 0-1, all kinds, small or huge timestamps.
/// One seed in three lists each input's rows (more of them) in start order, as a profiler
/// records them: each stream's rows then come in start order, which the unions merge instead of
/// sorting.
ts::event_table random_table(std::uint32_t seed) {
  std::mt19937_64 g(seed);
  auto uni = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
  };
  ts::event_table t;
  std::vector<ts::string_id> names;
  for (auto const* n : kernel_names) names.push_back(t.strings().intern(n));
  int const inputs = static_cast<int>(uni(1, 3));
  // Timestamp base: small, near 2^62, or negative; span: short or beyond 10 s.
  std::int64_t const bases[] = {0, (std::int64_t{1} << 62) - 5'000'000, -1'000'000,
                                1'700'000'000'000'000'000};
  std::int64_t const base = bases[uni(0, 3)];
  std::int64_t const span = uni(0, 3) == 0 ? 40'000'000'000 : uni(10, 5'000);
  std::int64_t const max_dur = uni(0, 2) == 0 ? span : std::max<std::int64_t>(1, span / 8);
  for (int in = 0; in < inputs; ++in) {
    t.begin_input("input" + std::to_string(in) + ".json", "synthetic");
    int const rows = static_cast<int>(seed % 3 == 0 ? uni(0, 600) : uni(0, 120));
    std::vector<ts::event> events;
    for (int r = 0; r < rows; ++r) {
      ts::event e;
      int const kind = static_cast<int>(uni(0, 9));
      e.kind = kind < 5   ? ts::event_kind::kernel
               : kind < 7 ? ts::event_kind::memcpy
               : kind < 8 ? ts::event_kind::memset
                          : (uni(0, 1) ? ts::event_kind::api_call : ts::event_kind::user_range);
      e.rank = static_cast<std::int32_t>(uni(0, 2));
      e.device = ts::is_device_activity(e.kind) ? static_cast<std::int32_t>(uni(0, 1)) : -1;
      e.stream = uni(0, 3);
      e.name = names[static_cast<std::size_t>(uni(0, std::size(kernel_names) - 1))];
      e.start_ns = base + uni(0, span);
      int const shape = static_cast<int>(uni(0, 9));
      e.end_ns = shape == 0   ? e.start_ns                     // zero-length
                 : shape == 1 ? e.start_ns - uni(1, 10)        // rejected by the table
                              : e.start_ns + uni(1, max_dur);  // ordinary
      events.push_back(e);
    }
    if (seed % 3 == 0)
      std::stable_sort(events.begin(), events.end(), [](ts::event const& a, ts::event const& b) {
        return a.start_ns < b.start_ns;
      });
    for (auto const& e : events) t.append(e);
    t.finish_input();
  }
  return t;
}

class summary_oracle : public ::testing::TestWithParam<unsigned> {};

TEST_P(summary_oracle, random_tables_match_brute_force) {
  auto be = ts::make_cpu_backend(GetParam());
  for (std::uint32_t seed = 1; seed <= 1000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto const t = random_table(seed);
    ts::summary_options o;
    std::mt19937 g(seed);
    o.min_gap_ns = std::uniform_int_distribution<std::int64_t>(0, 300)(g);
    o.top = std::uniform_int_distribution<std::size_t>(0, 4)(g);
    expect_same(ts::compute_summary(ts::trace_model(t), *be, o), oracle(t, o));
    if (::testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(threads, summary_oracle, ::testing::Values(1u, 4u));

TEST(summary, results_do_not_depend_on_thread_count) {
  auto one = ts::make_cpu_backend(1);
  auto many = ts::make_cpu_backend(8);
  for (std::uint32_t seed = 5000; seed < 5050; ++seed) {
    auto const t = random_table(seed);
    ts::summary_options o;
    o.min_gap_ns = 0;
    o.top = 0;
    expect_same(ts::compute_summary(ts::trace_model(t), *one, o),
                ts::compute_summary(ts::trace_model(t), *many, o));
  }
}

bool prefix_gemm(std::string name) {
  return name.rfind("ampere_sgemm", 0) == 0;
}

TEST(summary, custom_comm_pattern_is_a_case_insensitive_search) {
  auto be = ts::make_cpu_backend(1);
  for (std::uint32_t seed = 100; seed < 300; ++seed) {
    auto const t = random_table(seed);
    ts::summary_options o;
    expect_same(ts::compute_summary(ts::trace_model(t, {"^AMPERE_SGEMM"}), *be, o),
                oracle(t, o, prefix_gemm));
  }
}

TEST(summary, invalid_comm_pattern_is_a_pattern_error) {
  ts::event_table t;
  EXPECT_THROW((void)ts::trace_model(t, {"nccl("}), ts::pattern_error);
}

// ---- adversarial cases, each checked against the oracle and against hand-derived figures ----

struct row {
  ts::event_kind kind;
  std::int64_t s, e;
  char const* name = "k";
  std::int32_t rank = 0, device = 0;
};

ts::event_table table_of(std::vector<row> const& rows) {
  ts::event_table t;
  t.begin_input("case.json", "synthetic");
  for (auto const& r : rows) {
    ts::event e;
    e.kind = r.kind, e.start_ns = r.s, e.end_ns = r.e, e.rank = r.rank, e.device = r.device;
    e.name = t.strings().intern(r.name);
    t.append(e);
  }
  t.finish_input();
  return t;
}

ts::summary run(ts::event_table const& t, std::int64_t min_gap = 0) {
  auto be = ts::make_cpu_backend(2);
  ts::summary_options o;
  o.min_gap_ns = min_gap;
  auto s = ts::compute_summary(ts::trace_model(t), *be, o);
  expect_same(s, oracle(t, o));
  return s;
}

constexpr auto K = ts::event_kind::kernel;
constexpr auto C = ts::event_kind::memcpy;
constexpr auto S = ts::event_kind::memset;

TEST(summary_cases, empty_table) {
  ts::event_table t;
  auto const s = run(t);
  EXPECT_TRUE(s.devices.empty());
  EXPECT_TRUE(s.kernels.empty());
  EXPECT_TRUE(s.gaps.empty());
}

TEST(summary_cases, host_events_only_give_no_device) {
  auto const s = run(table_of({{ts::event_kind::api_call, 0, 10, "cudaLaunchKernel", 0, -1}}));
  EXPECT_TRUE(s.devices.empty());
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].events, 1);
}

TEST(summary_cases, one_interval) {
  auto const s = run(table_of({{K, 100, 350}}));
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].busy_ns, 250);
  EXPECT_EQ(s.devices[0].window_ns, 250);
  EXPECT_EQ(s.devices[0].utilization, 1.0);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].stddev_ns, 0.0);
  EXPECT_EQ(s.kernels[0].share, 1.0);
}

TEST(summary_cases, identical_nested_touching) {
  // [0,100) twice, [10,20) nested, [100,150) touching, [200,260) after a 50 ns gap.
  auto const s =
      run(table_of({{K, 0, 100}, {K, 0, 100}, {K, 10, 20}, {C, 100, 150}, {S, 200, 260}}));
  ASSERT_EQ(s.devices.size(), 1u);
  auto const& d = s.devices[0];
  EXPECT_EQ(d.busy_ns, 210);
  EXPECT_EQ(d.idle_ns, 50);
  EXPECT_EQ(d.kernel_ns, 100);
  EXPECT_EQ(d.memcpy_ns, 50);
  EXPECT_EQ(d.memset_ns, 60);
  EXPECT_EQ(d.kernel_count, 3);
  ASSERT_EQ(s.gaps.size(), 1u);
  EXPECT_EQ(s.gaps[0].start_ns, 150);
  EXPECT_EQ(s.gaps[0].end_ns, 200);
}

TEST(summary_cases, zero_length_kernels_count_but_add_nothing_and_split_no_gap) {
  auto const s = run(table_of({{K, 0, 10}, {K, 50, 50}, {K, 100, 110}, {K, 200, 200}}));
  auto const& d = s.devices[0];
  EXPECT_EQ(d.kernel_count, 4);
  EXPECT_EQ(d.busy_ns, 20);
  EXPECT_EQ(d.window_ns, 200);  // the last zero-length kernel still ends the window
  ASSERT_EQ(s.gaps.size(), 2u);
  // Two 90 ns gaps, equal durations ordered by start: [10,100) (not split at 50), [110,200).
  EXPECT_EQ(s.gaps[0].start_ns, 10);
  EXPECT_EQ(s.gaps[0].end_ns, 100);
  EXPECT_EQ(s.gaps[1].start_ns, 110);
  EXPECT_EQ(s.gaps[1].end_ns, 200);
}

TEST(summary_cases, only_zero_length_activity) {
  auto const s = run(table_of({{K, 5, 5}}));
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].window_ns, 0);
  EXPECT_EQ(s.devices[0].utilization, 0.0);
  EXPECT_TRUE(s.gaps.empty());
}

TEST(summary_cases, communication_overlap) {
  auto const s = run(table_of({{K, 0, 100, "gemm"},
                               {K, 50, 300, "ncclDevKernel_AllReduce"},
                               {K, 250, 400, "gemm"},
                               {K, 500, 600, "RCCL_x"}}));
  auto const& d = s.devices[0];
  EXPECT_EQ(d.communication_ns, 350);
  EXPECT_EQ(d.computation_ns, 250);
  EXPECT_EQ(d.overlap_ns, 100);
}

TEST(summary_cases, timestamps_near_2_to_62_and_long_durations) {
  // The top of the accepted range (time_in_range: |t| < 2^62).
  std::int64_t const b = (std::int64_t{1} << 62) - 100'000'000'000;
  auto const s = run(table_of({{K, b - 30'000'000'000, b - 10'000'000'000},
                               {K, b - 5'000'000'000, b + 20'000'000'000, "nccl"},
                               {C, b, b + 1}}),
                     1'000'000'000);
  auto const& d = s.devices[0];
  EXPECT_EQ(d.window_start_ns, b - 30'000'000'000);
  EXPECT_EQ(d.busy_ns, 45'000'000'000);
  ASSERT_EQ(s.gaps.size(), 1u);
  EXPECT_EQ(s.gaps[0].duration_ns, 5'000'000'000);
}

TEST(summary_cases, devices_sorted_by_rank_device_and_kernels_by_total_calls_name) {
  auto const s = run(table_of({{K, 0, 10, "b", 1, 0},
                               {K, 0, 10, "a", 0, 1},
                               {K, 0, 5, "c", 0, 0},
                               {K, 0, 5, "c", 0, 0},
                               {K, 0, 20, "d", 0, 0}}));
  ASSERT_EQ(s.devices.size(), 3u);
  EXPECT_EQ(std::tie(s.devices[0].rank, s.devices[0].device), std::make_tuple(0, 0));
  EXPECT_EQ(std::tie(s.devices[1].rank, s.devices[1].device), std::make_tuple(0, 1));
  EXPECT_EQ(std::tie(s.devices[2].rank, s.devices[2].device), std::make_tuple(1, 0));
  std::vector<std::string> order;
  for (auto const& k : s.kernels) order.push_back(k.name);
  EXPECT_EQ(order, (std::vector<std::string>{"d", "c", "a", "b"}));
}

}  // namespace summary_oracle_test
