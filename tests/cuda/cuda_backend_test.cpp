// SPDX-License-Identifier: Apache-2.0
// The real CUDA backend (CUB radix sort, the segment-flag kernel, Thrust on a stream) against
// the CPU backend on random inputs and on every real trace, unlimited and chunked. Skips with
// the reason when no usable GPU is present, or fails when TRACESWEEP_REQUIRE_GPU=1.
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/cuda_backend.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

#include "support/summary_compare.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep {
namespace {

/// Whether TRACESWEEP_REQUIRE_GPU=1 is set: a machine meant to have a GPU fails the GPU tests
/// instead of skipping them.
bool gpu_required() {
  char const* v = std::getenv("TRACESWEEP_REQUIRE_GPU");
  return v != nullptr && std::string_view(v) == "1";
}

#define REQUIRE_GPU()                                                                    \
  if (auto const why = cuda_unavailable_reason(); !why.empty()) {                        \
    if (gpu_required()) FAIL() << "TRACESWEEP_REQUIRE_GPU=1 but no usable GPU: " << why; \
    GTEST_SKIP() << "no usable GPU, the CUDA backend is not exercised here: " << why;    \
  }

TEST(CudaBackend, UnavailableReasonIsOneLine) {
  auto const why = cuda_unavailable_reason();
  EXPECT_EQ(why.find('\n'), std::string::npos);
  if (!why.empty()) {
    EXPECT_THROW((void)make_cuda_backend(), backend_unavailable);
  }
}

TEST(CudaBackend, PrimitivesMatchCpu) {
  REQUIRE_GPU();
  auto cpu = make_cpu_backend(0);
  std::mt19937_64 rng(42);
  // The chunked limit: 1 MiB for rows above the fixed temporary storage.
  for (std::size_t limit : {std::size_t{0}, cuda_temporary_reserve + (std::size_t{1} << 20)}) {
    auto gpu = make_cuda_backend({0, limit});
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33},
                          std::size_t{100'000}, std::size_t{2'000'000}}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " limit=" + std::to_string(limit));
      std::vector<std::uint64_t> keys(n);
      std::vector<std::uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = rng() & ((std::uint64_t{1} << 42) - 1);
        values[i] = static_cast<std::uint32_t>(i);
      }
      auto k2 = keys;
      auto v2 = values;
      cpu->sort_pairs(keys, values, 42);
      gpu->sort_pairs(k2, v2, 42);
      EXPECT_EQ(keys, k2);
      EXPECT_EQ(values, v2);

      std::vector<std::int64_t> start(n), end(n);
      std::vector<group_id> group(n);
      for (std::size_t i = 0; i < n; ++i) {
        start[i] = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(rng() % 50'000'000);
        end[i] = start[i] + static_cast<std::int64_t>(rng() % 2'000);
        group[i] = static_cast<group_id>(rng() % 8);
      }
      interval_view const iv{start, end, group};
      auto const u_cpu = cpu->union_by_group(iv);
      auto const u_gpu = gpu->union_by_group(iv);
      EXPECT_EQ(u_cpu.group, u_gpu.group);
      EXPECT_EQ(u_cpu.start, u_gpu.start);
      EXPECT_EQ(u_cpu.end, u_gpu.end);

      std::vector<std::int64_t> ws(8, 1'700'000'000'000'000'000), we(8, 1'700'000'000'050'000'000);
      EXPECT_EQ(cpu->gap_scan(u_cpu, {ws, we}, 100, 5), gpu->gap_scan(u_cpu, {ws, we}, 100, 5));

      std::vector<std::uint32_t> names(n);
      std::vector<std::int64_t> dur(n);
      for (std::size_t i = 0; i < n; ++i) {
        names[i] = static_cast<std::uint32_t>(rng() % 3 == 0 ? rng() % 5000 : rng() % 4);
        dur[i] = static_cast<std::int64_t>(rng() % 10'000'000);
      }
      double const q[] = {0.5, 0.99};
      EXPECT_EQ(cpu->segmented_stats(names, dur, q), gpu->segmented_stats(names, dur, q));

      std::vector<group_id> group2(n);
      for (std::size_t i = 0; i < n; ++i) group2[i] = static_cast<group_id>(rng() % 8);
      EXPECT_EQ(cpu->intersection_by_group(u_cpu, u_cpu, 8),
                gpu->intersection_by_group(u_cpu, u_cpu, 8));
      auto const u3 = cpu->union_by_group({std::span<std::int64_t const>(start).first(n / 2),
                                           std::span<std::int64_t const>(end).first(n / 2),
                                           std::span<group_id const>(group2).first(n / 2)});
      EXPECT_EQ(cpu->intersection_by_group(u_cpu, u3, 8), gpu->intersection_by_group(u_cpu, u3, 8));
      // Every device byte counts, CUB's and Thrust's temporary storage included.
      if (limit) {
        EXPECT_LE(cuda_peak_device_bytes(*gpu), limit);
      }
    }
  }
}

TEST(CudaBackend, EverySummaryOnEveryTraceMatchesCpu) {
  REQUIRE_GPU();
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::size_t compared = 0;
  for (auto const& path : test::trace_files(dir)) {
    event_table table;
    if (!test::read_trace(path, table)) continue;
    summary_options const options;
    auto cpu = make_cpu_backend(0);
    auto const reference = compute_summary(trace_model(table), *cpu, options);
    for (std::size_t limit : {std::size_t{0}, std::size_t{64} << 20,
                              cuda_temporary_reserve + (std::size_t{64} << 10)}) {
      auto gpu = make_cuda_backend({0, limit});
      test::expect_same(reference, compute_summary(trace_model(table), *gpu, options),
                        path.string() + " limit " + std::to_string(limit));
      if (limit) {
        EXPECT_LE(cuda_peak_device_bytes(*gpu), limit) << path;
      }
    }
    ++compared;
  }
  EXPECT_GT(compared, 10u);
}

}  // namespace
}  // namespace tracesweep
