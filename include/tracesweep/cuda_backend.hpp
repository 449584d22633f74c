// SPDX-License-Identifier: Apache-2.0
// The CUDA backend: device-resident columns and CUB/Thrust primitives. Only present in builds
// with TRACESWEEP_HAVE_CUDA.
#pragma once

#include <memory>

#include <tracesweep/backend.hpp>

namespace tracesweep {

/// Throws backend_unavailable when no usable device exists.
[[nodiscard]] std::unique_ptr<backend> make_cuda_backend();

}  // namespace tracesweep
