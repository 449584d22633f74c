// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/backend.hpp>
#include <tracesweep/build_info.hpp>
#include <tracesweep/error.hpp>

#ifdef TRACESWEEP_HAVE_CUDA
#include <tracesweep/cuda_backend.hpp>
#endif

namespace tracesweep {

#ifndef TRACESWEEP_HAVE_CUDA
std::string cuda_unavailable_reason() {
  return "this tracesweep was built without CUDA support";
}
#endif

std::string cuda_build_description() {
#ifdef TRACESWEEP_HAVE_CUDA
  return std::string("built with CUDA ") + TRACESWEEP_CUDA_VERSION + " for " +
         TRACESWEEP_CUDA_ARCHITECTURES;
#else
  return "not built (CPU only)";
#endif
}

std::size_t cuda_host_bytes_per_worker() {
  return cuda_unavailable_reason().empty() ? cuda_staging_bytes : 0;
}

std::unique_ptr<backend> make_backend(backend_choice choice, unsigned threads, std::string* why) {
  return make_backend(backend_request{choice, threads}, why);
}

std::unique_ptr<backend> make_backend(backend_request const& r, std::string* why) {
  if (r.choice == backend_choice::cpu) return make_cpu_backend(r.threads);
  std::string const reason = cuda_unavailable_reason();
  if (r.choice == backend_choice::cuda) {
    if (!reason.empty()) throw backend_unavailable(reason);
  }
#ifdef TRACESWEEP_HAVE_CUDA
  if (reason.empty() && (r.choice == backend_choice::cuda || r.work_rows >= cuda_auto_min_rows)) {
    if (why) *why = "backend: cuda";
    return make_cuda_backend({0, r.device_memory_limit, r.workers});
  }
  if (reason.empty()) {
    if (why)
      *why = "backend: cpu (" + std::to_string(r.work_rows) + " rows, below the " +
             std::to_string(cuda_auto_min_rows) + " from which auto uses the GPU)";
    return make_cpu_backend(r.threads);
  }
#endif
  if (why) *why = "backend: cpu (" + reason + ")";
  return make_cpu_backend(r.threads);
}

}  // namespace tracesweep
