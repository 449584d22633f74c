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
  /// The device memory this process may use, in bytes; work that needs more than a backend's
  /// share is processed in chunks and stitched. 0 = three quarters of the memory free on the
  /// device when the process first creates a CUDA backend (measured once).
  std::size_t device_memory_limit = 0;
  /// Backends in use at once (a scan's workers): each may use 1/workers of the memory.
  unsigned workers = 1;
};

/// Throws backend_unavailable when no usable device exists.
[[nodiscard]] std::unique_ptr<backend> make_cuda_backend(cuda_options const& options = {});

/// Device bytes of a CUDA backend's memory limit kept for temporary storage that does not grow
/// with the rows (CUB's and Thrust's); the rest is the rows' budget for chunking.
inline constexpr std::size_t cuda_temporary_reserve = std::size_t{1} << 20;

/// The most device memory `be` (made by make_cuda_backend) has held at once: buffers and the
/// temporary storage of CUB and Thrust, all from its pool. 0 for any other backend.
[[nodiscard]] std::size_t cuda_peak_device_bytes(backend const& be);

}  // namespace tracesweep
