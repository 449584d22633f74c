// SPDX-License-Identifier: Apache-2.0
// How one Chrome-trace event maps onto the columns: its kind from `cat` (Kineto, 2021 Kineto
// and Paddle spellings) and, for host ranges, from its name; its role (the category's family,
// Paddle's communication ranges); memcpy direction from the name; thread / stream numbers from
// `tid`; Paddle's " [1.234 ms]" name suffix.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <tracesweep/event_kind.hpp>

namespace tracesweep::chrome {

struct category_info {
  event_kind kind = event_kind::other;
  /// GPU-side row (pid = device, tid = stream): kernel, memcpy, memset, cuda_sync and
  /// gpu_user_annotation. device / stream come from args, else pid / tid.
  bool device_side = false;
  /// The category only PaddlePaddle writes (ProfileStep, CudaRuntime, OperatorInner, …).
  bool paddle_only = false;
  /// Host categories whose kind the name can refine (ProfilerStep#N, DataLoader, Optimizer.step).
  bool name_rules = false;
  /// The family the TensorBoard plugin reads from the category (case-insensitive), or Paddle's
  /// step / stage categories.
  category_role family = category_role::none;
  /// Paddle's Communication category: every such range is communication.
  bool communication = false;
  /// Paddle's Operator category: a communication range when the name says so
  /// (is_communication_op_name).
  bool communication_by_name = false;
  /// Paddle's PythonUserDefined category: a user range recorded from Python.
  bool python_range = false;
};

/// Classifies a `cat` string exactly as written (case-sensitive) for the kind; the family
/// ignores case. Unknown categories → kind other.
[[nodiscard]] category_info classify_category(std::string_view cat) noexcept;

/// Paddle's communication operators (§1.8): the name contains allreduce, broadcast or rpc, in
/// any case.
[[nodiscard]] bool is_communication_op_name(std::string_view name) noexcept;

/// The kind a host event's name implies, if any: `ProfilerStep#<digits>` → profiler_step,
/// `enumerate(DataLoader)#…` → data_loader, `Optimizer.step#…` → optimizer.
[[nodiscard]] std::optional<event_kind> kind_from_name(std::string_view name) noexcept;

/// Copy direction from a memcpy name such as "Memcpy HtoD (Pageable -> Device)"; stored in
/// the subkind column as a copy_kind value.
[[nodiscard]] copy_kind memcpy_kind_from_name(std::string_view name) noexcept;

/// Paddle writes host event names as "<name>[<dur>]" or "<name> [<dur>]" with <dur> like
/// "1.234 ms" / "12.345 us". Returns the name without that suffix (and the spaces before
/// it); other names are returned unchanged.
[[nodiscard]] std::string_view strip_paddle_duration_suffix(std::string_view name) noexcept;

/// True for Paddle's host thread ids: "<digits>(Python)" or "<digits>(C++)".
[[nodiscard]] bool is_paddle_thread_id(std::string_view tid) noexcept;

/// The first run of decimal digits in `text` ("stream 7" → 7, "1234(Python)" → 1234), when
/// `text` starts with digits or with letters/spaces before them; nullopt for text without
/// digits or with an out-of-range number.
[[nodiscard]] std::optional<std::int64_t> integer_in_text(std::string_view text) noexcept;

}  // namespace tracesweep::chrome
