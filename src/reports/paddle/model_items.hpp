// SPDX-License-Identifier: Apache-2.0
// The Model Summary's items (ProfileStep and the stages) as the overview and the model summary
// both name them: Paddle's spelling on ranks a Paddle export holds, Kineto's elsewhere.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::tables {

/// Item slots in print order.
enum model_slot : std::uint32_t {
  step_slot,
  loader_slot,
  forward_slot,
  backward_slot,
  optimizer_slot,
  model_slot_count
};

/// The slot of a step or stage kind.
[[nodiscard]] constexpr model_slot slot_of(event_kind k) noexcept {
  switch (k) {
    case event_kind::profiler_step:
      return step_slot;
    case event_kind::data_loader:
      return loader_slot;
    case event_kind::forward:
      return forward_slot;
    case event_kind::backward:
      return backward_slot;
    default:
      return optimizer_slot;
  }
}

inline constexpr std::array<char const*, model_slot_count> paddle_item_names = {
    "ProfileStep", "Dataloader", "Forward", "Backward", "Optimization"};
inline constexpr std::array<char const*, model_slot_count> kineto_item_names = {
    "ProfilerStep", "DataLoader", "Forward", "Backward", "Optimizer.step"};

/// The item name of `slot` on rank `rank`.
[[nodiscard]] inline char const* item_name(trace_model const& model, std::int32_t rank,
                                           model_slot slot) {
  return (model.rank_has_producer(rank, producer::paddle) ? paddle_item_names
                                                          : kineto_item_names)[slot];
}

}  // namespace tracesweep::tables
