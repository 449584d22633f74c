// SPDX-License-Identifier: Apache-2.0
// Side-by-side throughput of the CPU primitives against std::sort-based baselines (and IPS4o
// sequential for the sort) on uniform and trace-like data. Median of --reps runs, steady_clock,
// input copies made outside the timed region.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <ips4o.hpp>
#include <tracesweep/backend.hpp>

#include "cpu/primitives.hpp"

namespace {

using namespace tracesweep;
using clock_type = std::chrono::steady_clock;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// CPU seconds of the last time_median call's median run (all threads of the process): on a
/// shared, loaded VM this is the steadier figure for one thread.
double g_last_cpu_s = 0;

/// Median wall seconds of `reps` runs of `run`, calling `prepare` (untimed) before each.
double time_median(int reps, std::function<void()> const& prepare,
                   std::function<void()> const& run) {
  std::vector<std::pair<double, double>> t;
  for (int r = 0; r < reps; ++r) {
    prepare();
    double const c0 = process_cpu_seconds();
    auto const t0 = clock_type::now();
    run();
    t.emplace_back(std::chrono::duration<double>(clock_type::now() - t0).count(),
                   process_cpu_seconds() - c0);
  }
  std::sort(t.begin(), t.end());
  g_last_cpu_s = t[t.size() / 2].second;
  return t[t.size() / 2].first;
}

/// Intervals plus the 64-bit sort keys they came from.
struct dataset {
  std::string name;
  std::vector<std::uint64_t> keys;  // start times (trace) or random keys (uniform)
  std::vector<std::int64_t> start, end;
  std::vector<group_id> group;
};

/// 32 interleaved near-monotone streams around 2^60 ns (like absolute timestamps), 16 groups.
dataset trace_like(std::size_t n) {
  dataset d{"trace-32", {}, {}, {}, {}};
  std::mt19937_64 rng(1);
  std::int64_t clock[32];
  for (auto& c : clock) c = (std::int64_t{1} << 60) + static_cast<std::int64_t>(rng() % 1000000);
  d.keys.resize(n);
  d.start.resize(n);
  d.end.resize(n);
  d.group.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t const s = rng() % 32;
    clock[s] += static_cast<std::int64_t>(rng() % 3000);
    d.start[i] = clock[s];
    d.end[i] = clock[s] + static_cast<std::int64_t>(rng() % 4000);
    d.group[i] = static_cast<group_id>(s % 16);
    d.keys[i] = static_cast<std::uint64_t>(d.start[i]);
  }
  return d;
}

/// Uniform random 64-bit keys; intervals at uniform starts in [0, 2^40) over 16 groups.
dataset uniform(std::size_t n) {
  dataset d{"uniform", {}, {}, {}, {}};
  std::mt19937_64 rng(2);
  d.keys.resize(n);
  d.start.resize(n);
  d.end.resize(n);
  d.group.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    d.keys[i] = rng();
    d.start[i] = static_cast<std::int64_t>(rng() >> 24);
    d.end[i] = d.start[i] + static_cast<std::int64_t>(rng() % 1000000);
    d.group[i] = static_cast<group_id>(rng() % 16);
  }
  return d;
}

void row(char const* prim, dataset const& d, unsigned threads, double ours_s, double ours_cpu_s,
         double base_s, char const* base_name) {
  double const n = static_cast<double>(d.keys.size());
  if (base_s > 0)
    std::printf("%-22s %-9s %11zu %3u %10.1f %10.1f %10.1f %6.2fx  (%s)\n", prim, d.name.c_str(),
                d.keys.size(), threads, n / ours_s / 1e6, n / ours_cpu_s / 1e6, n / base_s / 1e6,
                base_s / ours_s, base_name);
  else
    std::printf("%-22s %-9s %11zu %3u %10.1f %10.1f %10s %7s  (%s)\n", prim, d.name.c_str(),
                d.keys.size(), threads, n / ours_s / 1e6, n / ours_cpu_s / 1e6, "-", "-",
                base_name);
  std::fflush(stdout);
}

/// Primitives selected with --only (empty: all).
std::vector<std::string> g_only;
/// Data set selected with --data ("trace" or "uniform"; empty: both).
std::string g_data;

bool selected(char const* name) {
  return g_only.empty() || std::find(g_only.begin(), g_only.end(), name) != g_only.end();
}

void bench(dataset const& d, unsigned threads, int reps) {
  std::size_t const n = d.keys.size();
  auto be = make_cpu_backend(threads);

  // 1. sort_pairs vs std::sort / IPS4o (sequential) on (key, u32) records.
  if (selected("sort")) {
    std::vector<std::uint64_t> k;
    std::vector<std::uint32_t> v;
    auto prep = [&] {
      k = d.keys;
      v.resize(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>(i);
    };
    double const ours = time_median(reps, prep, [&] { be->sort_pairs(k, v); });
    double const ours_cpu = g_last_cpu_s;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> p;
    auto prep_p = [&] {
      p.resize(n);
      for (std::size_t i = 0; i < n; ++i) p[i] = {d.keys[i], static_cast<std::uint32_t>(i)};
    };
    auto by_key = [](auto const& a, auto const& b) { return a.first < b.first; };
    double const base = time_median(reps, prep_p, [&] { std::sort(p.begin(), p.end(), by_key); });
    row("sort_pairs", d, threads, ours, ours_cpu, base, "std::sort of pairs");
    if (threads == 1) {
      double const ips =
          time_median(reps, prep_p, [&] { ips4o::sort(p.begin(), p.end(), by_key); });
      double const ips_cpu = g_last_cpu_s;
      row("  ips4o (seq) for ref.", d, threads, ips, ips_cpu, base, "std::sort of pairs");
    }
  }

  // 2. union_by_group (with its sort) vs std::sort of (group, start, end) records + sweep.
  interval_union u;
  if (selected("union") || selected("sweep") || selected("intersection")) {
    // Without "union" selected, the union and the sorted records are only built (once).
    bool const time_union = selected("union");
    interval_view const iv{d.start, d.end, d.group};
    double const ours = time_median(
        time_union ? reps : 1, [] {}, [&] { u = be->union_by_group(iv); });
    double const ours_cpu = g_last_cpu_s;
    std::vector<std::tuple<group_id, std::int64_t, std::int64_t>> rec;
    interval_union bu;
    auto prep = [&] {
      rec.clear();
      rec.reserve(n);
      for (std::size_t i = 0; i < n; ++i)
        if (d.end[i] > d.start[i]) rec.emplace_back(d.group[i], d.start[i], d.end[i]);
      bu = {};
    };
    double const base = time_median(time_union ? reps : 1, prep, [&] {
      std::sort(rec.begin(), rec.end());
      for (auto const& [g, s, e] : rec) {
        if (!bu.group.empty() && bu.group.back() == g && s <= bu.end.back()) {
          bu.end.back() = std::max(bu.end.back(), e);
        } else {
          bu.group.push_back(g);
          bu.start.push_back(s);
          bu.end.push_back(e);
        }
      }
    });
    if (bu.start != u.start || bu.end != u.end) std::printf("MISMATCH union vs baseline\n");
    if (time_union)
      row("union_by_group", d, threads, ours, ours_cpu, base, "std::sort records + sweep");

    // 3. The part after sorting: sweep + gap scan (top 10 per group), on presorted records.
    if (selected("sweep")) {
      std::vector<group_id> sg(rec.size());
      std::vector<std::int64_t> ss(rec.size()), se(rec.size());
      for (std::size_t i = 0; i < rec.size(); ++i) std::tie(sg[i], ss[i], se[i]) = rec[i];
      std::vector<std::int64_t> ws(16, std::numeric_limits<std::int64_t>::min() / 2),
          we(16, std::numeric_limits<std::int64_t>::max() / 2);
      std::vector<gap> gaps;
      double const sweep_s = time_median(
          reps, [] {},
          [&] {
            interval_union const su = cpu::union_of_sorted({sg, ss, se}, threads);
            gaps = cpu::gap_scan(su, {ws, we}, 1, 10, threads);
          });
      double const sweep_cpu = g_last_cpu_s;
      row("sweep+gap_scan(sorted)", d, threads, sweep_s, sweep_cpu, 0,
          "after sorting, top 10/group");
    }
  }

  // 4. segmented_stats vs std::sort of (key, value) + per-run scan. Keys: 5000 names, skewed.
  if (selected("stats")) {
    std::vector<std::uint32_t> names(n);
    std::vector<std::int64_t> dur(n);
    std::mt19937_64 rng(3);
    for (std::size_t i = 0; i < n; ++i) {
      names[i] = static_cast<std::uint32_t>(rng() % 2 ? rng() % 16 : rng() % 5000);
      dur[i] = d.end[i] - d.start[i];
    }
    std::vector<double> const qs{0.5, 0.99};
    std::vector<exact_stats> st;
    double const ours = time_median(
        reps, [] {}, [&] { st = be->segmented_stats(names, dur, qs); });
    double const ours_cpu = g_last_cpu_s;
    std::vector<std::pair<std::uint32_t, std::int64_t>> p;
    std::size_t groups = 0;
    auto prep = [&] {
      p.resize(n);
      for (std::size_t i = 0; i < n; ++i) p[i] = {names[i], dur[i]};
    };
    double const base = time_median(reps, prep, [&] {
      std::sort(p.begin(), p.end());
      groups = 0;
      for (std::size_t b = 0; b < n; ++groups) {
        std::size_t e = b;
        __int128 sum = 0;
        unsigned __int128 sq = 0;
        while (e < n && p[e].first == p[b].first) {
          sum += p[e].second;
          sq += static_cast<unsigned __int128>(p[e].second * p[e].second);
          ++e;
        }
        b = e;
      }
    });
    if (groups != st.size()) std::printf("MISMATCH stats groups\n");
    row("segmented_stats", d, threads, ours, ours_cpu, base, "std::sort pairs + scan");
  }

  // 5. intersection_by_group of the union with itself shifted by 500 ns (segments/s).
  if (selected("intersection")) {
    interval_union b = u;
    for (auto& s : b.start) s += 500;
    for (auto& e : b.end) e += 500;
    std::vector<std::int64_t> r;
    double const ours = time_median(
        reps, [] {}, [&] { r = be->intersection_by_group(u, b, 16); });
    double const ours_cpu = g_last_cpu_s;
    std::printf("%-22s %-9s %11zu %3u %10.1f %10.1f %10s %7s  (union segments/s; %zu segments)\n",
                "intersection_by_group", d.name.c_str(), u.size(), threads,
                static_cast<double>(u.size()) / ours / 1e6,
                static_cast<double>(u.size()) / ours_cpu / 1e6, "-", "-", u.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes{10'000'000};
  std::vector<unsigned> thread_counts{1, std::max(1u, std::thread::hardware_concurrency())};
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const a = argv[i];
    if (a == "--n") {
      sizes.clear();
      for (char* s = argv[i + 1]; *s;) {
        sizes.push_back(std::strtoull(s, &s, 10));
        if (*s == ',') ++s;
      }
    } else if (a == "--threads") {
      thread_counts = {static_cast<unsigned>(std::atoi(argv[i + 1]))};
    } else if (a == "--only") {
      for (char const* s = argv[i + 1]; *s;) {
        char const* const comma = std::strchr(s, ',');
        g_only.emplace_back(s, comma ? comma : s + std::strlen(s));
        s = comma ? comma + 1 : s + std::strlen(s);
      }
    } else if (a == "--data") {
      g_data = argv[i + 1];
    } else if (a == "--reps") {
      reps = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(
          stderr,
          "usage: bench_primitives [--n N[,N...]] [--threads T] [--reps R]\n"
          "         [--only sort,union,sweep,stats,intersection] [--data trace|uniform]\n");
      return 1;
    }
  }
  std::printf("%-22s %-9s %11s %3s %10s %10s %10s %7s\n", "primitive", "data", "n", "thr",
              "ours M/s", "ours/cpu-s", "base M/s", "ratio");
  for (std::size_t n : sizes) {
    for (auto make : {trace_like, uniform}) {
      if (!g_data.empty() && (make == trace_like) != (g_data == "trace")) continue;
      dataset const d = make(n);
      for (unsigned t : thread_counts) bench(d, t, reps);
    }
  }
  return 0;
}
