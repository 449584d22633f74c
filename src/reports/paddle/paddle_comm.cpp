// SPDX-License-Identifier: Apache-2.0
// Reads the split off the model's nesting: communication ranges are what the reader marked
// (event_role::communication_range); each kernel is classified by the ranges above the API call
// that launched it, else by the model's paddle_names communication policy.
#include "reports/paddle/paddle_comm.hpp"

namespace tracesweep::tables {

std::vector<comm_split> paddle_comm_split(trace_model const& model) {
  auto const& t = model.table();
  std::vector<comm_split> out(model.ranks().size());
  if (!model.has_paddle_input()) return out;  // only Paddle's rows are split
  auto paddle = [&](std::size_t i) { return model.row_producer(i) == producer::paddle; };
  auto comm = [&](std::int64_t i) {
    return t.role[static_cast<std::size_t>(i)].communication_range();
  };
  for (std::size_t i = 0; i < t.size(); ++i)
    if (paddle(i) && t.device[i] < 0 && t.kind[i] != event_kind::api_call && comm(i))
      out[model.rank_index(t.rank[i])].cpu_comm.push_back(i);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || !paddle(i) || !model.kept(i)) continue;
    auto const call = model.launcher(i);
    if (call < 0) continue;
    auto const node = model.parent(static_cast<std::size_t>(call));
    if (node < 0) continue;  // a call outside every host range
    auto& split = out[model.rank_index(t.rank[i])];
    // Rule 1/2: under a communication range (the call's node or any range above it).
    for (auto n = node; n >= 0; n = model.parent(static_cast<std::size_t>(n)))
      if (comm(n)) {
        split.gpu_comm.push_back(i);
        break;
      }
    // Rule 3: kernels of a node's own calls, when the node is not communication.
    if (!comm(node)) {
      if (model.is_communication(t.strings().at(t.name[i]), communication_policy::paddle_names))
        split.gpu_comm.push_back(i);
      else
        split.compute.push_back(i);
    }
  }
  return out;
}

}  // namespace tracesweep::tables
