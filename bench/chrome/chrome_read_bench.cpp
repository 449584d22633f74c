// SPDX-License-Identifier: Apache-2.0
// Times the Chrome-trace reader alone on one file: wall time, raw-JSON MB/s (decompressed
// bytes for .gz, counted by a separate zlib pass before timing), rows/s, peak RSS.
// usage: chrome_read_bench FILE [THREADS]
#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include <sys/resource.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

std::uint64_t content_bytes(std::string const& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return 0;
  gzbuffer(f, 1 << 20);
  std::vector<char> buf(1 << 22);
  std::uint64_t total = 0;
  for (int n; (n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0;)
    total += static_cast<std::uint64_t>(n);
  gzclose(f);
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [THREADS]\n", argv[0]);
    return 1;
  }
  std::string const path = argv[1];
  unsigned const threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1;
  auto const file_bytes = std::filesystem::file_size(path);
  auto const raw = std::getenv("RAW_BYTES") ? std::strtoull(std::getenv("RAW_BYTES"), nullptr, 10)
                                            : content_bytes(path);
  tracesweep::event_table table;
  tracesweep::read_options options;
  options.threads = threads;
  auto const t0 = std::chrono::steady_clock::now();
  tracesweep::read_input(path, table, options);
  auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double const rss_bytes = static_cast<double>(ru.ru_maxrss) * 1024.0;
  std::printf(
      "read %s threads=%u: %.3f s, file %.1f MB, raw JSON %.1f MB, %.0f MB/s raw, %zu rows, "
      "%.2f M rows/s, peak RSS %.0f MB (%.3f x raw)\n",
      path.c_str(), threads, seconds, file_bytes / 1e6, raw / 1e6, raw / 1e6 / seconds,
      table.size(), table.size() / 1e6 / seconds, rss_bytes / 1e6,
      rss_bytes / static_cast<double>(raw));
  return 0;
}
