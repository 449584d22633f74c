// SPDX-License-Identifier: Apache-2.0
// One status line on stderr (a long read's progress, a scan's): redrawn in place by its own
// thread, cleared at the end, with lines printed above it kept whole.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tracesweep::cli {

class progress_line {
 public:
  /// Draws `text()` every 250 ms from `delay` after construction, only when `enabled` (stderr
  /// is a terminal and not --quiet); an empty text is not drawn. A line that outlasted the delay
  /// shows at least once when its text is not empty at the end.
  progress_line(std::function<std::string()> text, bool enabled,
                std::chrono::milliseconds delay = std::chrono::milliseconds(0));
  ~progress_line();
  progress_line(progress_line const&) = delete;
  progress_line& operator=(progress_line const&) = delete;

  /// Writes `line` and a newline on stderr, above the progress line when one is drawn.
  void print_above(std::string const& line);

 private:
  void loop();
  void draw();

  std::function<std::string()> const _text;
  bool const _enabled;
  std::chrono::milliseconds const _delay;
  std::chrono::steady_clock::time_point const _created = std::chrono::steady_clock::now();
  bool _done = false;
  bool _drawn = false;
  std::mutex _m;
  std::condition_variable _cv;
  std::thread _thread;
};

/// A time left or taken as a progress line shows it: "4m05s", or "2h03m" from an hour on.
[[nodiscard]] std::string duration_text(double seconds);

}  // namespace tracesweep::cli
