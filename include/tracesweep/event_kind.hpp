// SPDX-License-Identifier: Apache-2.0
// What an event is. Communication is not a kind: an NCCL kernel is a kernel, classified by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracesweep {

enum class event_kind : std::uint8_t {
  kernel,
  memcpy,
  memset,
  synchronization,
  api_call,       ///< CUDA runtime or driver API call (host side)
  user_range,     ///< NVTX range or user annotation
  cpu_op,         ///< framework operator on the host
  profiler_step,  ///< ProfilerStep#N / ProfileStep
  data_loader,
  forward,
  backward,
  optimizer,
  os_call,  ///< OS runtime call (nsys OSRT_API)
  other,
};
inline constexpr int event_kind_count = 14;

/// Stable lower-case label ("kernel", "api_call", …) used in JSON and CSV output.
[[nodiscard]] std::string_view to_string(event_kind k) noexcept;
[[nodiscard]] std::optional<event_kind> parse_event_kind(std::string_view s) noexcept;

/// True for the kinds that occupy a GPU: kernel, memcpy, memset.
[[nodiscard]] constexpr bool is_device_activity(event_kind k) noexcept {
  return k == event_kind::kernel || k == event_kind::memcpy || k == event_kind::memset;
}

/// Copy direction of a memcpy, stored in the table's `subkind` column. Values follow CUPTI's
/// CUpti_ActivityMemcpyKind so the nsys reader stores them unchanged.
enum class copy_kind : std::uint8_t {
  unknown = 0,
  host_to_device = 1,
  device_to_host = 2,
  host_to_array = 3,
  array_to_host = 4,
  array_to_array = 5,
  array_to_device = 6,
  device_to_array = 7,
  device_to_device = 8,
  host_to_host = 9,
  peer_to_peer = 10,
};

/// Style of a user range, stored in `subkind` for event_kind::user_range.
enum class range_style : std::uint8_t { push_pop = 0, start_end = 1, mark = 2 };

}  // namespace tracesweep
