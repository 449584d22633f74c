// SPDX-License-Identifier: Apache-2.0
// Ingest throughput of the nsys reader: reads FILE into the event table at the given thread
// counts, median of 3 each, twice: KERNEL + RUNTIME (+ StringIds) only (read_options::kinds, what
// `stats` does for kernel and API reports; the ingest target), and every table of the file.
// Rates count the KERNEL + RUNTIME rows appended.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tracesweep/input_reader.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nsys_ingest_bench FILE.sqlite [THREADS...]\n");
    return 1;
  }
  std::vector<unsigned> threads;
  for (int i = 2; i < argc; ++i) threads.push_back(static_cast<unsigned>(std::atoi(argv[i])));
  if (threads.empty()) threads = {1, 2};
  auto const kernel_api = tracesweep::kind_bit(tracesweep::event_kind::kernel) |
                          tracesweep::kind_bit(tracesweep::event_kind::api_call);
  for (auto const kinds : {kernel_api, tracesweep::all_event_kinds})
    for (auto t : threads) {
      std::vector<double> seconds;
      std::size_t counted = 0, rows = 0;
      for (int rep = 0; rep < 3; ++rep) {
        tracesweep::event_table table;
        tracesweep::read_options o;
        o.threads = t;
        o.kinds = kinds;
        auto const t0 = std::chrono::steady_clock::now();
        tracesweep::read_input(argv[1], table, o);
        auto const t1 = std::chrono::steady_clock::now();
        seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
        counted = static_cast<std::size_t>(
            std::count_if(table.kind.begin(), table.kind.end(), [](auto k) {
              return k == tracesweep::event_kind::kernel || k == tracesweep::event_kind::api_call;
            }));
        rows = table.size();
      }
      std::sort(seconds.begin(), seconds.end());
      double const median = seconds[1];
      std::printf(
          "%s, threads %u: %.3f s median of 3, %zu KERNEL+RUNTIME rows (%zu rows in all): %.2f M "
          "KERNEL+RUNTIME rows/s, %.2f M rows/s\n",
          kinds == kernel_api ? "KERNEL+RUNTIME tables" : "all tables", t, median, counted, rows,
          static_cast<double>(counted) / median / 1e6, static_cast<double>(rows) / median / 1e6);
    }
  return 0;
}
