// SPDX-License-Identifier: Apache-2.0
// Reads a Chrome-trace JSON file (Kineto / PyTorch profiler, PaddlePaddle profiler), plain or
// gzip, streaming, into the event table.
#pragma once

#include <string>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep {

/// Throws input_error on any fatal defect; skipped events are counted in the input's info.
void read_chrome_trace(std::string const& path, event_table& table, read_options const& options);

}  // namespace tracesweep
