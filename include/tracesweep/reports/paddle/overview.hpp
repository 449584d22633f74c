// SPDX-License-Identifier: Apache-2.0
// Paddle's Overview Summary, per rank: for every event type, its calls and the union of its time
// across threads (host) or devices and streams (device), over the rank's denominator — the union
// of its ProfileStep / ProfilerStep intervals, else its span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct overview_row {
  std::string type;     ///< the producer's category (`cat`), or the step / stage the name says
  bool device = false;  ///< a device-side row (GPU Time) rather than a host row (CPU Time)
  std::int64_t calls = 0;
  std::int64_t time_ns = 0;
  double ratio = 0;  ///< time / total
  /// How time was computed: "union" (merged across threads/streams/devices) or "sum" (stage rows
  /// taken from the model summary: outermost stage events, durations added).
  std::string rule = "union";
};

struct rank_overview {
  std::int32_t rank = 0;
  std::int64_t total_ns = 0;       ///< the denominator
  std::string total_from;          ///< "steps" or "span"
  std::vector<overview_row> rows;  ///< host rows by time desc, then device rows
};

/// One entry per rank, ascending.
[[nodiscard]] std::vector<rank_overview> compute_overview(job_session const& session);

}  // namespace tracesweep
