// SPDX-License-Identifier: Apache-2.0
// Paddle's Device Summary (§1.5), per rank: each GPU's utilization, |∪ its kernels over every
// stream| / the rank's denominator (∪ steps, else the span; memcpy and memset do not count), and
// the CPU utilization of the process and of the system where the input recorded it (Paddle's
// ExtraInfo).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

struct gpu_utilization {
  std::int32_t device = 0;
  std::int64_t kernel_ns = 0;  ///< |∪ kernels on the device|
  double utilization = 0;      ///< kernel_ns / total
};

struct rank_device_summary {
  std::int32_t rank = 0;
  std::int64_t total_ns = 0;                      ///< the overview denominator
  std::string total_from;                         ///< "steps" or "span"
  std::optional<double> process_cpu, system_cpu;  ///< fractions, from the rank's first input
  std::vector<gpu_utilization> gpus;              ///< by device id
};

/// One entry per rank, ascending.
[[nodiscard]] std::vector<rank_device_summary> compute_device_summary(job_session const& session);

}  // namespace tracesweep
