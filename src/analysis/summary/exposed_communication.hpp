// SPDX-License-Identifier: Apache-2.0
// The summary's split of each device's exposed communication into waiting for later ranks and
// transferring (docs/metrics.md, "exposed_comm_wait_ns").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <tracesweep/analysis/collectives.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep::summary_detail {

struct exposed_split {
  std::int64_t wait_ns = 0, transfer_ns = 0;
};

/// Per dense device id: |W \ C| and |X \ C|, W and X the unions of the wait and the transfer
/// parts of the device's NCCL kernels in instances matched across ranks (`matching`, the
/// session's model's match_collectives), C the union of its computation kernels: `computation`
/// where given (the session's activity kept it), else the part of it that meets W ∪ X, built
/// here. Empty when no collective is matched across ranks.
[[nodiscard]] std::vector<exposed_split> split_exposed_communication(
    job_session const& session, collective_matching const& matching,
    interval_union const* computation);

}  // namespace tracesweep::summary_detail
