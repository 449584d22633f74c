// SPDX-License-Identifier: Apache-2.0
// The job session's kept parts and the one computation behind each.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <span>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

/// The job tables' groupings of GPUs (a kernel row's group is found again when a union needs
/// it: keeping it would cost 8 bytes a row of the table).
struct table_devices {
  std::vector<table_device> by_rank;   ///< (rank index, device) of kept kernels, ascending
  std::vector<table_device> by_input;  ///< (input, device) of kernels, ascending
};

struct job_session::parts {
  std::once_flag activity_once;
  activity_result activity;
  std::once_flag order_once;
  device_rows order;
  std::once_flag devices_once;
  table_devices devices;
  std::array<std::once_flag, table_union_count> union_once;
  std::array<interval_union, table_union_count> unions;
  std::once_flag denominators_once;
  std::vector<denominator> denominators;
  std::mutex held_mutex;
  std::vector<std::span<std::byte const>> held;  ///< columns held on the backend
};

namespace session_detail {

/// The backend's device_activity over the model's device rows, keeping what the needs keep.
[[nodiscard]] activity_result compute_activity(job_session const& session);

/// Each device's rows by (start, row): the backend's sort_pairs (key: device above the start's
/// offset from the earliest start) when the keys fit 64 bits, else a host sort.
[[nodiscard]] device_rows order_device_rows(trace_model const& model, backend& be);

/// The GPUs the job tables group kernels by.
[[nodiscard]] table_devices group_table_devices(trace_model const& model);

/// The union `which` by the backend (groups as table_union says); only the unions by GPU ask the
/// session for its GPUs (a pass over every row).
[[nodiscard]] interval_union compute_table_union(job_session const& session, table_union which);

/// Each rank's denominator from the steps union and the model's spans.
[[nodiscard]] std::vector<denominator> compute_denominators(job_session const& session);

}  // namespace session_detail
}  // namespace tracesweep
