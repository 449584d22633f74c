// SPDX-License-Identifier: Apache-2.0
// The CUDA backend: device-resident columns and CUB/Thrust primitives. Only present in builds
// with TRACESWEEP_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <memory>

#include <tracesweep/backend.hpp>

namespace tracesweep {

struct cuda_options {
  int device = 0;
  /// Device memory one primitive call may use, in bytes; work that needs more is processed in
  /// chunks and stitched. 0 = three quarters of the memory free on the device at creation.
  std::size_t device_memory_limit = 0;
};

/// Throws backend_unavailable when no usable device exists.
[[nodiscard]] std::unique_ptr<backend> make_cuda_backend(cuda_options const& options = {});

}  // namespace tracesweep
