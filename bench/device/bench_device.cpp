// SPDX-License-Identifier: Apache-2.0
// Side-by-side timings of the analysis primitives on synthetic trace-like events: the CPU
// backend at 1 thread and at all threads, the CUDA backend with the host-to-device copy counted
// (columns start on the host, as the backend interface takes them) and, for sort, union and
// stats, on columns already resident on the device. "activity" is the whole device part of a
// summary in one backend::device_activity call (device-resident on the GPU: the columns go up
// once, the result tables come back). Median of --reps runs; ratios printed.
// Usage: bench_device [--sizes 10000000,100000000] [--reps 5] [--no-gpu]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <tracesweep/backend.hpp>
#ifdef TRACESWEEP_HAVE_CUDA
#include <tracesweep/cuda_backend.hpp>

#include "bench/device/resident_bench.hpp"
#endif

namespace {

using namespace tracesweep;

struct events {
  std::vector<std::int64_t> start, end, dur;
  std::vector<group_id> device;
  std::vector<std::uint32_t> name;
  std::vector<event_kind> kind;
  std::vector<std::uint8_t> communication;  ///< per name: every 7th is a communication kernel
};

/// 8 devices × 4 streams of back-to-back kernels with small gaps, Zipf-like kernel names.
events synthesize(std::size_t n) {
  events e;
  e.start.resize(n);
  e.end.resize(n);
  e.dur.resize(n);
  e.device.resize(n);
  e.name.resize(n);
  e.kind.resize(n);
  e.communication.resize(5000);
  for (std::size_t k = 0; k < e.communication.size(); k += 7) e.communication[k] = 1;
  std::mt19937_64 rng(2024);
  std::int64_t clock[32] = {};
  for (auto& c : clock) c = 1'700'000'000'000'000'000;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t const lane = rng() % 32;
    std::int64_t const d = 1'000 + static_cast<std::int64_t>(rng() % 200'000);
    clock[lane] += static_cast<std::int64_t>(rng() % 20'000);
    e.start[i] = clock[lane];
    e.end[i] = clock[lane] + d;
    clock[lane] += d;
    e.dur[i] = d;
    e.device[i] = static_cast<group_id>(lane / 4);
    double const u = std::uniform_real_distribution<double>(0, 1)(rng);
    e.name[i] = static_cast<std::uint32_t>(std::pow(5000.0, u)) - 1;  // skewed over 5000 names
    e.kind[i] = i % 10 == 0 ? event_kind::memcpy : event_kind::kernel;
  }
  return e;
}

double median_ms(int reps, std::function<void()> const& fn) {
  std::vector<double> t;
  fn();  // warm-up: page faults, pools
  for (int r = 0; r < reps; ++r) {
    auto const t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct row {
  double sort = 0, union_ = 0, gaps = 0, stats = 0, inter = 0, total = 0, activity = 0;
};

row time_backend(backend& be, events const& e, int reps) {
  std::size_t const n = e.start.size();
  std::int64_t const lo = *std::min_element(e.start.begin(), e.start.end());
  std::int64_t const hi = *std::max_element(e.start.begin(), e.start.end());
  int const bits = std::max(1, 64 - __builtin_clzll(static_cast<std::uint64_t>(hi - lo) | 1));
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint32_t> rows(n);
  row r;
  r.sort = median_ms(reps, [&] {
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<std::uint64_t>(e.start[i] - lo);
      rows[i] = static_cast<std::uint32_t>(i);
    }
    be.sort_pairs(keys, rows, bits);
  });
  interval_view const iv{e.start, e.end, e.device};
  interval_union u;
  r.union_ = median_ms(reps, [&] { u = be.union_by_group(iv); });
  std::vector<std::int64_t> ws(8, lo), we(8, hi + 1'000'000'000);
  r.gaps = median_ms(reps, [&] { (void)be.gap_scan(u, {ws, we}, 10'000, 20); });
  double const q[] = {0.5};
  r.stats = median_ms(reps, [&] { (void)be.segmented_stats(e.name, e.dur, q); });
  // communication stand-in: every 7th name's union against the whole union
  std::vector<std::int64_t> cs, ce;
  std::vector<group_id> cg;
  for (std::size_t i = 0; i < n; i += 7) {
    cs.push_back(e.start[i]);
    ce.push_back(e.end[i]);
    cg.push_back(e.device[i]);
  }
  auto const comm = be.union_by_group({cs, ce, cg});
  r.inter = median_ms(reps, [&] { (void)be.intersection_by_group(u, comm, 8); });
  r.total = r.sort + r.union_ + r.gaps + r.stats + r.inter;
  activity_request const request{e.start,         e.end, e.kind, e.device, e.name,
                                 e.communication, 8,     10'000, 20};
  r.activity = median_ms(reps, [&] { (void)be.device_activity(request); });
  return r;
}

void print_row(char const* label, row const& r) {
  std::printf("  %-28s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", label, r.sort, r.union_,
              r.gaps, r.stats, r.inter, r.total, r.activity);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes{10'000'000, 100'000'000};
  long const pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  double const ram_gb = static_cast<double>(pages) * static_cast<double>(page) / 1e9;
  if (ram_gb >= 64) sizes.push_back(1'000'000'000);
  int reps = 5;
  bool gpu = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        sizes.push_back(std::stoull(t));
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::stoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--no-gpu")) {
      gpu = false;
    }
  }
  unsigned const cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("bench_device: %u hardware threads, %.0f GB RAM, median of %d runs, times in ms\n",
              cores, ram_gb, reps);
  std::string const why = cuda_unavailable_reason();
  if (gpu && !why.empty()) std::printf("GPU: not measured (%s)\n", why.c_str());
  gpu = gpu && why.empty();
  for (std::size_t n : sizes) {
    std::printf("\n%zu events\n  %-28s %10s %10s %10s %10s %10s %10s %10s\n", n, "", "sort",
                "union", "gaps", "stats", "intersect", "total", "activity");
    auto const e = synthesize(n);
    auto cpu1 = make_cpu_backend(1);
    auto cpun = make_cpu_backend(0);
    row const r1 = time_backend(*cpu1, e, reps);
    print_row("cpu 1 thread", r1);
    row const rn = time_backend(*cpun, e, reps);
    print_row(("cpu " + std::to_string(cores) + " threads").c_str(), rn);
    std::printf("  cpu scaling (1 / all threads): %.2fx end to end\n", r1.total / rn.total);
#ifdef TRACESWEEP_HAVE_CUDA
    if (gpu) {
      auto g = make_cuda_backend();
      row const rg = time_backend(*g, e, reps);
      print_row("gpu, H2D copy counted", rg);
      auto const res = bench::time_resident({e.start, e.end, e.device}, e.name, e.dur, reps);
      std::printf("  %-28s %10.1f %10.1f %10s %10.1f %10s %10.1f   (H2D of 5 columns: %.1f)\n",
                  "gpu, device-resident", res.sort_ms, res.union_ms, "-", res.stats_ms, "-",
                  res.sort_ms + res.union_ms + res.stats_ms, res.h2d_ms);
      std::printf(
          "  ratios vs cpu all threads: copy counted %.1fx end to end; resident "
          "sort %.1fx, union %.1fx, stats %.1fx; device_activity %.1fx\n",
          rn.total / rg.total, rn.sort / res.sort_ms, rn.union_ / res.union_ms,
          rn.stats / res.stats_ms, rn.activity / rg.activity);
    }
#endif
  }
  return 0;
}
