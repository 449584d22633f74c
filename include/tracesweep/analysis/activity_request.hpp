// SPDX-License-Identifier: Apache-2.0
// The backend's device_activity request for a job: the event table's columns with the model's
// dense device ids and communication names, as the summary and the diagnosis ask it.
#pragma once

#include <cstdint>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

/// Gaps of at least `min_gap` ns, the longest `top_per_group` per device (0 = all).
[[nodiscard]] activity_request job_activity_request(trace_model const& model, std::int64_t min_gap,
                                                    std::size_t top_per_group);

}  // namespace tracesweep
