// SPDX-License-Identifier: Apache-2.0
// The summary contract every input format answers: per-device activity, per-kernel statistics,
// the largest idle gaps and what was read. Computed from the event table by the primitives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct summary_options {
  std::int64_t min_gap_ns = 100'000;
  std::size_t top = 20;
};

struct device_summary {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::int64_t window_start_ns = 0;
  std::int64_t window_end_ns = 0;
  std::int64_t window_ns = 0;
  std::int64_t busy_ns = 0;
  std::int64_t idle_ns = 0;
  double utilization = 0;
  std::int64_t kernel_ns = 0;
  std::int64_t memcpy_ns = 0;
  std::int64_t memset_ns = 0;
  std::int64_t communication_ns = 0;
  std::int64_t computation_ns = 0;
  std::int64_t overlap_ns = 0;
  std::int64_t kernel_count = 0;
  /// Exposed communication (not under computation) that is waiting for later ranks, and that is
  /// transferring, over collectives matched across ranks; none when the job has no such match.
  std::optional<std::int64_t> exposed_comm_wait_ns, exposed_comm_transfer_ns;
};

struct kernel_summary {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0;
  double avg_ns = 0;
  double median_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double stddev_ns = 0;
  double share = 0;
};

struct gap_summary {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  std::int32_t device = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t duration_ns = 0;
};

struct summary {
  std::vector<device_summary> devices;
  std::vector<kernel_summary> kernels;
  std::vector<gap_summary> gaps;
  std::vector<input_info> inputs;
  /// The earliest GPU operation's start (kernel, memcpy, memset); none without one.
  std::optional<std::int64_t> trace_start_ns;
};

/// What the summary reads of a session's device activity.
[[nodiscard]] activity_needs summary_needs(summary_options const& options) noexcept;

/// The summary from the session's device activity. Communication kernels are those the model's
/// classifier marks.
[[nodiscard]] summary compute_summary(job_session const& session, summary_options const& options);
/// The same on a session of its own.
[[nodiscard]] summary compute_summary(trace_model const& model, backend& be,
                                      summary_options const& options);

}  // namespace tracesweep
