// SPDX-License-Identifier: Apache-2.0
// The progress line of a long read (drawn by progress_line on a terminal, once reading has taken
// longer than a delay): file, bytes read of its size, MB/s, ETA.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <tracesweep/input_reader.hpp>

namespace tracesweep::cli {

/// Before the line shows: about a second, or TRACESWEEP_PROGRESS_DELAY_MS (tests set 0).
[[nodiscard]] std::chrono::milliseconds progress_delay();

/// The line's text each time it is drawn; the rate counts from when the current file began.
/// Empty (nothing drawn) before the first file opens.
[[nodiscard]] std::function<std::string()> read_progress_text(read_progress const& p);

}  // namespace tracesweep::cli
