// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the owning work item.
#include <string>
#include <tracesweep/cuda_backend.hpp>
#include <tracesweep/error.hpp>
namespace tracesweep {
std::string cuda_unavailable_reason() { return "cuda backend not implemented yet"; }
std::unique_ptr<backend> make_cuda_backend() { throw backend_unavailable("not implemented yet"); }
}
