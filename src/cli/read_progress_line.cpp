// SPDX-License-Identifier: Apache-2.0
#include "cli/read_progress_line.hpp"

#include <cstdlib>
#include <string_view>

#include <fmt/core.h>

#include <tracesweep/output/safe_text.hpp>

#include "cli/progress_line.hpp"

namespace tracesweep::cli {

std::chrono::milliseconds progress_delay() {
  if (char const* env = std::getenv("TRACESWEEP_PROGRESS_DELAY_MS"); env && *env)
    return std::chrono::milliseconds(std::strtol(env, nullptr, 10));
  return std::chrono::milliseconds(1000);
}

std::function<std::string()> read_progress_text(read_progress const& p) {
  struct current_file {
    std::string path;
    std::chrono::steady_clock::time_point start;
  };
  return [&p, file = current_file{}]() mutable {
    auto const now = std::chrono::steady_clock::now();
    auto const path = p.path();
    if (path.empty()) return std::string();  // before the first file opens
    if (path != file.path) file = {path, now};
    auto const done = p.bytes_done.load(), total = p.bytes_total.load();
    double const seconds = std::chrono::duration<double>(now - file.start).count();
    double const rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    std::string const eta =
        rate > 0 && total > done ? duration_text(static_cast<double>(total - done) / rate) : "-";
    std::string_view name = path;
    if (auto const slash = name.rfind('/'); slash != std::string_view::npos)
      name.remove_prefix(slash + 1);
    double const mb = 1e6;
    return fmt::format("reading {}: {:.0f}/{:.0f} MB, {:.0f} MB/s, ETA {}",
                       output::terminal_text(name), static_cast<double>(done) / mb,
                       static_cast<double>(total) / mb, rate / mb, eta);
  };
}

}  // namespace tracesweep::cli
