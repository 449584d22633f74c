// SPDX-License-Identifier: Apache-2.0
// A job whose every step has a known critical path (generate --plant critical-path). Each rank
// runs one host thread and one stream; every step, from its start T (ns after T):
//
//   host   ProfilerStep#N [0, 1 000 000]
//          aten::A [0, 100 000]          ⊃ cudaLaunchKernel [10 000, 20 000]       → k1
//          aten::B [100 000, 200 000]    ⊃ cudaLaunchKernel [110 000, 120 000]     → k2
//          aten::C [200 000, 900 000]    ⊃ cudaDeviceSynchronize [600 000, 890 000]
//   GPU 0, stream 7:  k1 [30 000, 400 000], k2 [400 000, 850 000]
//   a context synchronisation record [615 000, 860 000] of the cudaDeviceSynchronize call
//
// The critical path runs through k1 and k2 (their 820 µs against the host's 610 µs); without k2
// the host takes over. docs/critical_path.md derives each form's path (a Kineto file wraps each
// launching call in an aten op 1 µs either side; an nsys export makes the operators and the step
// NVTX ranges, the step's a window). Steps follow each other 1.1 ms apart; every rank runs the
// same steps.
#pragma once

#include <cstdint>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

struct critical_path_job_options {
  std::int32_t ranks = 1;
  std::int32_t steps = 3;
  std::int64_t start_ns = 1'700'000'000'000'000'000;
};

/// Fills `table` with the job (one input). Throws std::invalid_argument for no rank or no step.
void generate_critical_path_job(critical_path_job_options const& o, event_table& table);

}  // namespace tracesweep
