// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/event_kind.hpp>

#include <array>

namespace tracesweep {

namespace {
constexpr std::array<std::string_view, event_kind_count> kind_labels = {
    "kernel",  "memcpy",        "memset",      "synchronization", "api_call", "user_range",
    "cpu_op",  "profiler_step", "data_loader", "forward",         "backward", "optimizer",
    "os_call", "other"};
}

std::string_view to_string(event_kind k) noexcept {
  return kind_labels[static_cast<std::size_t>(k)];
}

}  // namespace tracesweep
