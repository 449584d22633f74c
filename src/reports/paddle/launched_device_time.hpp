// SPDX-License-Identifier: Apache-2.0
// Device time (kernel + memcpy + memset durations, added: Paddle's general_gpu_time) launched
// inside a host row, by the model summary's two rules: Paddle counts the runtime calls of the
// row's own thread lying wholly inside it (§1.2), the others the calls of any host thread of the
// rank starting in [start, end).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <tracesweep/model/trace_model.hpp>

namespace tracesweep::tables {

class launched_device_time {
 public:
  explicit launched_device_time(trace_model const& model);
  /// The device time launched inside host row `row`.
  [[nodiscard]] std::int64_t inside(std::size_t row) const;

 private:
  struct call {
    std::int64_t start = 0, end = 0, device_ns = 0;
  };
  /// Calls that launched device work, by start: per (input, thread) and per rank.
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<call>> _by_thread;
  std::map<std::int32_t, std::vector<call>> _by_rank;
  trace_model const& _model;
};

}  // namespace tracesweep::tables
