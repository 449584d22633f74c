// SPDX-License-Identifier: Apache-2.0
// What an event is: its kind and the role the reader saw in its category. Communication kernels
// are not a kind: an NCCL kernel is a kernel, classified by name.
#pragma once

#include <cstdint>
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

/// The family a producer's category puts a row in, where an analysis needs more than the kind
/// (the TensorBoard plugin types events by category, case-insensitively). Decided by the reader.
enum class category_role : std::uint8_t {
  none = 0,    ///< no family: nsys rows, kind-only categories, unknown categories
  op,          ///< cpu_op / Operator
  python,      ///< python / python_function
  annotation,  ///< user_annotation / gpu_user_annotation
  runtime,     ///< cuda_runtime / Runtime (not cuda_driver, not Paddle's CudaRuntime)
  phase,       ///< Paddle's ProfileStep / Dataloader / Forward / Backward / Optimization
};

/// What the reader decided about a row besides its kind, one byte in the table's `role` column:
/// the category's family, whether Paddle counts the row as a communication range, and whether it
/// is a user range recorded from Python (Paddle's PythonUserDefined).
class event_role {
 public:
  constexpr event_role() noexcept = default;
  constexpr explicit event_role(category_role family, bool communication_range = false,
                                bool python_range = false) noexcept
      : _bits(static_cast<std::uint8_t>(static_cast<std::uint8_t>(family) |
                                        (communication_range ? comm_bit : 0) |
                                        (python_range ? python_bit : 0))) {}

  [[nodiscard]] constexpr category_role family() const noexcept {
    return static_cast<category_role>(_bits & family_mask);
  }
  /// A host range Paddle's Distributed Summary counts as communication (§1.8): category
  /// Communication, or Operator whose name contains allreduce, broadcast or rpc (any case).
  [[nodiscard]] constexpr bool communication_range() const noexcept {
    return (_bits & comm_bit) != 0;
  }
  /// A user range Paddle recorded from Python code (category PythonUserDefined): the ranges its
  /// UserDefined Summary lists (its C++ UserDefined ranges are internal).
  [[nodiscard]] constexpr bool python_range() const noexcept { return (_bits & python_bit) != 0; }
  friend constexpr bool operator==(event_role, event_role) noexcept = default;

 private:
  static constexpr std::uint8_t family_mask = 0x0F;
  static constexpr std::uint8_t comm_bit = 0x10;
  static constexpr std::uint8_t python_bit = 0x20;
  std::uint8_t _bits = 0;
};
static_assert(sizeof(event_role) == 1);

}  // namespace tracesweep
