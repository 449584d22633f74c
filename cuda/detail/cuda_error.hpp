// SPDX-License-Identifier: Apache-2.0
// Every CUDA runtime call goes through TRACESWEEP_CUDA_TRY: a failure throws cuda_error (a
// tracesweep::device_error) naming the call; running out of device memory says so and how to
// chunk.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include <tracesweep/error.hpp>

namespace tracesweep::cuda_detail {

class cuda_error : public device_error {
 public:
  cuda_error(cudaError_t code, std::string const& what)
      : device_error(what, code == cudaErrorMemoryAllocation), _code(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return _code; }

 private:
  cudaError_t _code;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t e, char const* call, char const* file,
                                          int line) {
  std::string what = std::string("cuda: ") + call + " failed: " + cudaGetErrorName(e) + " (" +
                     cudaGetErrorString(e) + ") at " + file + ":" + std::to_string(line);
  if (e == cudaErrorMemoryAllocation)
    what = "cuda: out of device memory in " + std::string(call) +
           "; a lower device memory limit processes the trace in smaller chunks";
  throw cuda_error(e, what);
}

}  // namespace tracesweep::cuda_detail

#define TRACESWEEP_CUDA_TRY(call)                                                           \
  do {                                                                                      \
    cudaError_t const tracesweep_cuda_status_ = (call);                                     \
    if (tracesweep_cuda_status_ != cudaSuccess) {                                           \
      (void)cudaGetLastError(); /* clear a sticky-less error so later calls start clean */  \
      ::tracesweep::cuda_detail::throw_cuda_error(tracesweep_cuda_status_, #call, __FILE__, \
                                                  __LINE__);                                \
    }                                                                                       \
  } while (0)
