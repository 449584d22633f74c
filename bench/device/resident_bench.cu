// SPDX-License-Identifier: Apache-2.0
// bench_device's GPU half: the primitives on columns already on the device, timed on the CUDA
// context of the backend (cuda/detail/cuda_context.cuh). Benchmark code only.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>

#include "bench/device/resident_bench.hpp"
#include "cuda/detail/cuda_context.cuh"
#include "cuda/detail/primitives.cuh"

namespace tracesweep::bench {

resident_times time_resident(interval_view in, std::span<std::uint32_t const> names,
                             std::span<std::int64_t const> durations, int reps) {
  if (std::string const why = cuda_unavailable_reason(); !why.empty())
    throw backend_unavailable(why);
  cuda_detail::cuda_context ctx(0);
  auto const s = ctx.stream();
  std::size_t const n = in.size();
  auto median_ms = [&](auto&& fn) {
    std::vector<double> t;
    for (int r = 0; r < std::max(reps, 1); ++r) {
      auto const t0 = std::chrono::steady_clock::now();
      fn();
      TRACESWEEP_CUDA_TRY(cudaStreamSynchronize(s));
      t.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  resident_times out;
  auto start = ctx.alloc<std::int64_t>(n, s);
  auto end = ctx.alloc<std::int64_t>(n, s);
  auto group = ctx.alloc<std::uint32_t>(n, s);
  auto name = ctx.alloc<std::uint32_t>(n, s);
  auto dur = ctx.alloc<std::int64_t>(n, s);
  out.h2d_ms = median_ms([&] {
    ctx.upload(start.data(), in.start.data(), n, s);
    ctx.upload(end.data(), in.end.data(), n, s);
    ctx.upload(group.data(), in.group.data(), n, s);
    ctx.upload(name.data(), names.data(), n, s);
    ctx.upload(dur.data(), durations.data(), n, s);
  });
  std::int64_t const lo = n ? *std::min_element(in.start.begin(), in.start.end()) : 0;
  std::int64_t const max_start = n ? *std::max_element(in.start.begin(), in.start.end()) : 0;
  auto keys = ctx.alloc<std::uint64_t>(n, s);
  auto rows = ctx.alloc<std::uint32_t>(n, s);
  out.sort_ms = median_ms([&] {
    thrust::transform(ctx.policy(s), start.data(), start.data() + n, keys.data(),
                      cuda_detail::normalise_i64_fn{lo});
    thrust::sequence(ctx.policy(s), rows.data(), rows.data() + n);
    ctx.sort_pairs(keys, rows, cuda_detail::bits_for(cuda_detail::normalise(max_start, lo)), s);
  });
  out.union_ms = median_ms([&] {
    (void)cuda_detail::union_resident(ctx, {start.data(), end.data(), group.data(), n}, s);
  });
  double const q[] = {0.5};
  out.stats_ms =
      median_ms([&] { (void)cuda_detail::stats_resident(ctx, s, name.data(), dur.data(), n, q); });
  return out;
}

}  // namespace tracesweep::bench
