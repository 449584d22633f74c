// SPDX-License-Identifier: Apache-2.0
// The job session's kept parts and the one computation behind each.
#pragma once

#include <mutex>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct job_session::parts {
  std::once_flag activity_once;
  activity_result activity;
  std::once_flag order_once;
  device_rows order;
};

namespace session_detail {

/// The backend's device_activity over the model's device rows, keeping what the needs keep.
[[nodiscard]] activity_result compute_activity(job_session const& session);

/// Each device's rows by (start, row): the backend's sort_pairs (key: device above the start's
/// offset from the earliest start) when the keys fit 64 bits, else a host sort.
[[nodiscard]] device_rows order_device_rows(trace_model const& model, backend& be);

}  // namespace session_detail
}  // namespace tracesweep
