// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/backend.hpp>
#include <tracesweep/error.hpp>

#ifdef TRACESWEEP_HAVE_CUDA
#include <tracesweep/cuda_backend.hpp>
#endif

namespace tracesweep {

#ifndef TRACESWEEP_HAVE_CUDA
std::string cuda_unavailable_reason() { return "this tracesweep was built without CUDA support"; }
#endif

std::unique_ptr<backend> make_backend(backend_choice choice, unsigned threads, std::string* why) {
  if (choice == backend_choice::cpu) return make_cpu_backend(threads);
  std::string const reason = cuda_unavailable_reason();
  if (choice == backend_choice::cuda) {
    if (!reason.empty()) throw backend_unavailable("--backend cuda: " + reason);
  }
#ifdef TRACESWEEP_HAVE_CUDA
  if (reason.empty()) {
    if (why) *why = "backend: cuda";
    return make_cuda_backend();
  }
#endif
  if (why) *why = "backend: cpu (" + reason + ")";
  return make_cpu_backend(threads);
}

}  // namespace tracesweep
