// SPDX-License-Identifier: Apache-2.0
// The device_activity request of a job (include/tracesweep/analysis/activity_request.hpp).
#include <tracesweep/analysis/activity_request.hpp>

namespace tracesweep {

activity_request job_activity_request(trace_model const& model, std::int64_t min_gap,
                                      std::size_t top_per_group) {
  auto const& table = model.table();
  activity_request request;
  request.start = table.start_ns;
  request.end = table.end_ns;
  request.kind = table.kind;
  request.device_group = model.device_group();
  request.name = table.name;
  request.communication = model.communication_names();
  request.device_count = model.devices().size();
  request.min_gap = min_gap;
  request.top_per_group = top_per_group;
  return request;
}

}  // namespace tracesweep
