// SPDX-License-Identifier: Apache-2.0
// The communication policies (see communication_policy in trace_model.hpp): the kernel pattern,
// TensorBoard's fixed host-op names, Paddle's substring rule and the host-row pattern, answered by
// the model.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

/// TensorBoard's collectives: "<backend>:<op>" for these ops, nothing else.
bool is_tensorboard_op(std::string_view name, std::string_view backend) {
  constexpr std::array<std::string_view, 5> ops{"broadcast", "reduce", "all_reduce", "all_gather",
                                                "reduce_scatter"};
  if (name.size() <= backend.size() || !name.starts_with(backend) || name[backend.size()] != ':')
    return false;
  auto const op = name.substr(backend.size() + 1);
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// Paddle's rule: "nccl" or "xccl" anywhere in the name, any case.
bool is_paddle_comm_name(std::string_view name) {
  std::string low(name);
  for (auto& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.find("nccl") != std::string::npos || low.find("xccl") != std::string::npos;
}

}  // namespace

bool trace_model::is_communication(std::string_view name, communication_policy policy) const {
  switch (policy) {
    case communication_policy::kernels_by_pattern:
      return _comm_regex.matches(name);
    case communication_policy::tensorboard_nccl_ops:
      return is_tensorboard_op(name, "nccl");
    case communication_policy::tensorboard_gloo_ops:
      return is_tensorboard_op(name, "gloo");
    case communication_policy::paddle_names:
      return is_paddle_comm_name(name);
    case communication_policy::host_rows_by_pattern:
      return _host_comm_regex.matches(name);
  }
  return false;
}

}  // namespace tracesweep
