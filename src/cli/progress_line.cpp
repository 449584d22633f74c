// SPDX-License-Identifier: Apache-2.0
#include "cli/progress_line.hpp"

#include <cstdio>
#include <utility>

#include <fmt/core.h>

namespace tracesweep::cli {

progress_line::progress_line(std::function<std::string()> text, bool enabled,
                             std::chrono::milliseconds delay)
    : _text(std::move(text)), _enabled(enabled), _delay(delay) {
  if (_enabled) _thread = std::thread([this] { loop(); });
}

progress_line::~progress_line() {
  if (!_enabled) return;
  {
    std::lock_guard lock(_m);
    _done = true;
    // Whatever the thread's timing, a line that outlasted the delay shows at least once.
    if (!_drawn && std::chrono::steady_clock::now() - _created >= _delay) draw();
  }
  _cv.notify_all();
  _thread.join();
  if (_drawn) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void progress_line::print_above(std::string const& line) {
  std::lock_guard lock(_m);
  std::fprintf(stderr, "%s%s\n", _drawn ? "\r\033[K" : "", line.c_str());
  if (_drawn) draw();
}

void progress_line::loop() {
  std::unique_lock lock(_m);
  if (_cv.wait_for(lock, _delay, [&] { return _done; })) return;
  do draw();
  while (!_cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return _done; }));
}

void progress_line::draw() {
  auto const text = _text();
  if (text.empty()) return;  // nothing to show yet (no file opened)
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  _drawn = true;
}

std::string duration_text(double seconds) {
  auto const s = static_cast<long>(seconds);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60)
                   : fmt::format("{}m{:02}s", s / 60, s % 60);
}

}  // namespace tracesweep::cli
