// SPDX-License-Identifier: Apache-2.0
// The CUDA backend: the device algorithms (detail/primitives.cuh, detail/activity.cuh) behind
// the backend interface (detail/device_backend.hpp) on the CUDA context
// (detail/cuda_context.cuh). The one translation unit nvcc compiles for the tool.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include <tracesweep/cuda_backend.hpp>
#include <tracesweep/error.hpp>

#include "cuda/detail/cuda_context.cuh"
#include "cuda/detail/cuda_error.hpp"
#include "cuda/detail/cuda_resources.hpp"
#include "cuda/detail/device_backend.hpp"

namespace tracesweep {

std::unique_ptr<backend> make_cuda_backend(cuda_options const& options) {
  if (std::string const why = cuda_unavailable_reason(); !why.empty())
    throw backend_unavailable(why);
  try {
    // The process's budget, measured once, before this backend's context takes memory.
    std::size_t const limit = cuda_detail::budget_share(
        cuda_detail::device_budget(options.device, options.device_memory_limit), options.workers);
    cuda_detail::cuda_context ctx(options.device);
    return std::make_unique<cuda_detail::device_backend<cuda_detail::cuda_context>>(std::move(ctx),
                                                                                    limit, "cuda");
  } catch (cuda_detail::cuda_error const& e) {
    throw backend_unavailable(e.what());
  }
}

std::size_t cuda_peak_device_bytes(backend const& be) {
  using cuda_backend = cuda_detail::device_backend<cuda_detail::cuda_context>;
  auto const* b = dynamic_cast<cuda_backend const*>(&be);
  return b ? b->context().memory().peak : 0;
}

}  // namespace tracesweep
