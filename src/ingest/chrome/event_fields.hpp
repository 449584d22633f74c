// SPDX-License-Identifier: Apache-2.0
// One trace event's fields as the columns use them, read from its JSON object with simdjson
// On-Demand: ph, cat, name, the ts/dur tokens, pid/tid, args (device, stream, correlation, bytes,
// launch metrics and configuration, NCCL collective args, memory args), with the syntax checks
// On-Demand leaves to the consumer.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

#include <simdjson.h>

#include "ingest/chrome/decimal_time.hpp"

namespace tracesweep::chrome {

enum class presence : std::uint8_t { absent, number, other };

/// `ts` or `dur` as read: what the value was, its raw number token, and its value in ns when
/// the reader converted it on the way (the common digit counts).
struct time_field {
  std::string_view token;
  presence state = presence::absent;
  bool converted = false;
  std::int64_t ns = 0;

  /// The value in ns: microseconds_to_ns of the token, unless already converted.
  [[nodiscard]] number_status to_ns(std::int64_t& out) const noexcept {
    if (!converted) return microseconds_to_ns(token, out);
    out = ns;
    return number_status::ok;
  }
};

/// The fields of one event that the columns use.
struct event_fields {
  std::string_view ph, cat, name;
  time_field ts, dur;
  std::int64_t pid = 0;
  bool pid_int = false;
  std::int64_t tid = 0;
  bool tid_int = false;
  std::string_view tid_text;
  bool tid_is_text = false;
  std::int64_t device = -1, stream = -1, correlation = -1, bytes = 0;
  bool has_device = false, has_stream = false, has_correlation = false;
  bool stream_is_number = false;  ///< the "stream" arg is a JSON number (not text such as "0x0")
  // Launch metrics (kernels): Kineto's "est. achieved occupancy %", Paddle's "theoretical
  // achieved occupancy %" (used only when the "est." one is absent). NaN = absent.
  double blocks_per_sm = std::numeric_limits<double>::quiet_NaN();
  double est_occupancy = std::numeric_limits<double>::quiet_NaN();
  double theoretical_occupancy = std::numeric_limits<double>::quiet_NaN();
  // Launch configuration (kernels): Kineto's "grid" and "block", [x, y, z]; -1 = absent (an
  // array of other than three integers in [0, 2^31) counts as absent).
  std::array<std::int32_t, 3> grid{-1, -1, -1}, block{-1, -1, -1};
  [[nodiscard]] bool has_launch_shape() const noexcept { return grid[0] >= 0 && block[0] >= 0; }
  // A collective's operation (Kineto's NCCL kernel args): "Collective name", "dtype",
  // "Process Group Name" (empty = absent), "In msg nelems", "Out msg nelems", "Group size"
  // (-1 = absent; a value that is no integer ≥ 0 counts as absent).
  // Older Kineto traces carry them on the host instead (read only when the name, which Kineto
  // writes before the args, starts "nccl:" or "c10d::"): the operation is the name's rest, the
  // dtype "Input type"'s first, and the element counts come from "Input Dims", the products of
  // its first two shapes (a `nccl:*` annotation: the input tensor; a `c10d::*_base_` op: output
  // then input).
  std::string_view collective, dtype, process_group;
  std::int64_t in_elements = -1, out_elements = -1, group_size = -1;
  std::array<std::int64_t, 2> input_elements{-1, -1};  ///< "Input Dims" (host records)
  [[nodiscard]] bool has_collective_args() const noexcept {
    return !collective.empty() || !dtype.empty() || !process_group.empty() || in_elements >= 0 ||
           out_elements >= 0 || group_size >= 0;
  }
  // A cuda_sync record's wait (Kineto's "wait_on_stream", "wait_on_cuda_event_record_corr_id"):
  // -1 = absent (or negative, as Kineto writes for "none").
  std::int64_t wait_stream = -1, wait_record_correlation = -1;
  [[nodiscard]] bool has_sync_wait() const noexcept {
    return wait_stream >= 0 || wait_record_correlation >= 0;
  }
  // Memory events (Kineto `[memory]` args); found flags say the integer was there.
  std::int64_t memory_bytes = 0, total_allocated = 0, total_reserved = 0;
  std::int64_t memory_device = -1, memory_device_type = -1;
  bool has_memory_bytes = false, has_total_allocated = false, has_total_reserved = false;
  bool has_memory_device = false, has_memory_device_type = false;
  // Paddle's memory args: increase_bytes, current_allocated, current_reserved, place.
  std::int64_t increase_bytes = 0, current_allocated = 0, current_reserved = 0;
  bool has_increase_bytes = false, has_current_allocated = false, has_current_reserved = false;
  std::string_view place;
  /// An instant event's name read after its ph is compared as written (not unescaped, not
  /// checked): whether it is "[memory]".
  bool memory_name = false;
  [[nodiscard]] bool is_memory_event() const noexcept {
    return ph == "i" && (memory_name || name == "[memory]");
  }
  char const* fault_at = nullptr;  ///< where the invalid JSON starts, when an error is returned
};

/// Reads the fields of one event object. Returns an error code from simdjson; f.fault_at is
/// where the offending value starts when it is known. `backslash_free`: the event's text holds
/// no backslash (event_chunk::backslash_free), so ph, cat and name are taken between their
/// quotes without a look for escapes.
[[nodiscard]] simdjson::error_code read_event(simdjson::ondemand::object& obj, event_fields& f,
                                              bool backslash_free = false);

/// A string holding an integer: decimal, or 0x-hex of at most 15 digits.
[[nodiscard]] bool integer_text(std::string_view s, std::int64_t& out);

}  // namespace tracesweep::chrome
