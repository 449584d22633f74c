// SPDX-License-Identifier: Apache-2.0
// The project's HOST_DEVICE marker for code shared by nvcc and g++ builds. CCCL's
// _CCCL_HOST_DEVICE expands to __host__ __device__ under nvcc and to nothing under a plain host
// compiler, so the device algorithms compile unchanged with Thrust's CPP system in CI.
#pragma once

#include <cuda/std/cstdint>

#ifndef _CCCL_HOST_DEVICE
#error "tracesweep: the CCCL headers must be on the include path"
#endif

#define TRACESWEEP_HOST_DEVICE _CCCL_HOST_DEVICE
