// SPDX-License-Identifier: Apache-2.0
// Whether a CUDA device is usable, asked of the runtime once; never aborts. Plain C++ against
// the CUDA runtime API (no device code), so nvcc is not needed for it.
#include <string>

#include <cuda_runtime_api.h>

#include <tracesweep/backend.hpp>

namespace tracesweep {
namespace {

std::string version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string probe() {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
    return "no CUDA driver is installed";
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess && driver < runtime)
    return "the CUDA driver supports CUDA " + version(driver) + ", older than the CUDA " +
           version(runtime) + " runtime this tracesweep was built with";
  int count = 0;
  cudaError_t const e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
  }
  if (count == 0) return "no CUDA device found";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "cannot query CUDA device 0";
  if (prop.major * 10 + prop.minor < TRACESWEEP_CUDA_MIN_ARCH)
    return std::string("CUDA device 0 (") + prop.name + ", sm_" + std::to_string(prop.major) +
           std::to_string(prop.minor) + ") is older than this build's oldest target sm_" +
           std::to_string(TRACESWEEP_CUDA_MIN_ARCH);
  return {};
}

}  // namespace

std::string cuda_unavailable_reason() {
  static std::string const reason = probe();
  return reason;
}

}  // namespace tracesweep
