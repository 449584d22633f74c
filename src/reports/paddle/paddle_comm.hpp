// SPDX-License-Identifier: Apache-2.0
// Paddle's communication / computation split (Distributed Summary rules, §1.8): communication
// host events and the kernels under them, NCCL/XCCL kernels, and the computation kernels.
#pragma once

#include <cstdint>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::tables {

struct comm_split {
  std::vector<std::size_t> cpu_comm;  ///< host rows that are communication
  std::vector<std::size_t> gpu_comm;  ///< kernel rows counted as communication
  std::vector<std::size_t> compute;   ///< kernel rows counted as computation (may repeat gpu_comm)
};

/// One per rank of model.ranks(); only rows of Paddle inputs take part.
[[nodiscard]] std::vector<comm_split> paddle_comm_split(trace_model const& model);

}  // namespace tracesweep::tables
