// SPDX-License-Identifier: Apache-2.0
// The progress line of a long read: on a terminal, once reading has taken longer than a delay,
// one line on stderr redrawn in place (file, bytes read of its size, MB/s, ETA), cleared when
// reading ends.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <tracesweep/input_reader.hpp>

namespace tracesweep::cli {

/// Before the line shows: about a second, or TRACESWEEP_PROGRESS_DELAY_MS (tests set 0).
[[nodiscard]] std::chrono::milliseconds progress_delay();

class read_progress_line {
 public:
  /// Draws nothing unless `enabled`; otherwise from `delay` after construction every 250 ms.
  read_progress_line(read_progress const& p, bool enabled, std::chrono::milliseconds delay);
  ~read_progress_line();
  read_progress_line(read_progress_line const&) = delete;
  read_progress_line& operator=(read_progress_line const&) = delete;

 private:
  void loop();
  void draw();

  read_progress const& _p;
  bool const _enabled;
  bool _done = false;
  bool _drawn = false;
  std::string _file;  ///< the file the rate is measured on
  std::chrono::steady_clock::time_point _file_start = std::chrono::steady_clock::now();
  std::chrono::milliseconds const _delay;
  std::chrono::steady_clock::time_point const _created = std::chrono::steady_clock::now();
  std::mutex _m;
  std::condition_variable _cv;
  std::thread _thread;
};

}  // namespace tracesweep::cli
