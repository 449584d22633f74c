// SPDX-License-Identifier: Apache-2.0
#include "cli/read_progress_line.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/core.h>

namespace tracesweep::cli {

std::chrono::milliseconds progress_delay() {
  if (char const* env = std::getenv("TRACESWEEP_PROGRESS_DELAY_MS"); env && *env)
    return std::chrono::milliseconds(std::strtol(env, nullptr, 10));
  return std::chrono::milliseconds(1000);
}

read_progress_line::read_progress_line(read_progress const& p, bool enabled,
                                       std::chrono::milliseconds delay)
    : _p(p), _enabled(enabled), _delay(delay) {
  if (_enabled) _thread = std::thread([this] { loop(); });
}

read_progress_line::~read_progress_line() {
  if (!_enabled) return;
  {
    std::lock_guard lock(_m);
    _done = true;
    // A read that outlasted the delay shows at least once, whatever the thread's timing.
    if (!_drawn && std::chrono::steady_clock::now() - _created >= _delay) draw();
  }
  _cv.notify_all();
  _thread.join();
  if (_drawn) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void read_progress_line::loop() {
  std::unique_lock lock(_m);
  if (_cv.wait_for(lock, _delay, [&] { return _done; })) return;
  do draw();
  while (!_cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return _done; }));
}

void read_progress_line::draw() {
  auto const now = std::chrono::steady_clock::now();
  auto const path = _p.path();
  if (path != _file) _file = path, _file_start = now;
  auto const done = _p.bytes_done.load(), total = _p.bytes_total.load();
  double const seconds = std::chrono::duration<double>(now - _file_start).count();
  double const rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::string eta = "-";
  if (rate > 0 && total > done) {
    auto const left = static_cast<long>(static_cast<double>(total - done) / rate);
    eta = fmt::format("{}m{:02}s", left / 60, left % 60);
  }
  std::string_view name = path;
  if (auto const slash = name.rfind('/'); slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  double const mb = 1e6;
  auto const line =
      fmt::format("reading {}: {:.0f}/{:.0f} MB, {:.0f} MB/s, ETA {}", name,
                  static_cast<double>(done) / mb, static_cast<double>(total) / mb, rate / mb, eta);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  _drawn = true;
}

}  // namespace tracesweep::cli
