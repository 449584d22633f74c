// SPDX-License-Identifier: Apache-2.0
// The session's device activity: one backend call over the columns of the event table, the
// model's dense device ids and communication flags, and the device order when it is kept.
#include "session/session_parts.hpp"

namespace tracesweep::session_detail {

activity_result compute_activity(job_session const& session) {
  auto const& model = session.model();
  auto const& table = model.table();
  auto const& needs = session.needs();
  activity_request request;
  request.start = table.start_ns;
  request.end = table.end_ns;
  request.kind = table.kind;
  request.device_group = model.device_group();
  request.name = table.name;
  request.stream = table.stream;
  request.communication = model.communication_names();
  request.device_count = model.devices().size();
  request.min_gap = needs.min_gap_ns;
  request.top_per_group = needs.gaps_per_device;
  request.keep_unions = needs.unions;
  // At any thread count: the summary's split reads it after the activity. Built beside the
  // activity on a second thread instead, the split's own union took about 15 times the split's CPU
  // time, and more memory than keeping this one (CHANGELOG: summary at 2 threads).
  request.keep_computation_union = needs.computation_union;
  // An analysis that reads the unions reads each device's rows in start order too: with that
  // order the unions sort nothing more.
  if (needs.unions) request.order = session.device_order().rows;
  return session.primitives().device_activity(request);
}

}  // namespace tracesweep::session_detail
