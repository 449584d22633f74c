// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the results store's loading code (results_store, store_schema, load_jobs,
// the scan lock's reader, the fleet report) on a database file holding the input's bytes: opened
// read-only as report and diff open it (version check, runs, latest and previous run, every
// run's jobs, the report of the latest), then read-write as a scan opens it (migration of an
// older version) and read again.
// A refusal is an input_error with its reason; any other exception, or a sanitizer report, is a
// bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/fleet_report.hpp>
#include <tracesweep/fleet/results_store.hpp>

namespace {

namespace fleet = tracesweep::fleet;

/// The database file, in /dev/shm when there is one (each input is written out).
std::string const& store_path() {
  static std::string const path = [] {
    std::filesystem::path dir = std::filesystem::exists("/dev/shm")
                                    ? std::filesystem::path("/dev/shm")
                                    : std::filesystem::temp_directory_path();
    return (dir / ("fuzz_results_store_" + std::to_string(::getpid()) + ".sqlite")).string();
  }();
  return path;
}

void remove_store() {
  for (auto const* suffix : {"", "-wal", "-shm", "-journal"})
    std::remove((store_path() + suffix).c_str());
}

/// Everything report, diff and merge read of an open store.
void read_everything(fleet::results_store const& store) {
  std::size_t loaded = 0;
  for (auto const& run : store.runs()) {
    (void)store.job_count(run.id);
    if (loaded++ < 4) (void)store.load_jobs(run.id);  // a few runs: the time of one input
  }
  (void)store.find_run("previous");
  (void)store.stored_hashes();
  if (auto const latest = store.find_run("latest"))
    (void)fleet::fleet_report(store, *latest, fleet::report_options{});
}

/// A refusal says why (the CLI prints it as one line, its control characters escaped).
void check_reason(tracesweep::input_error const& e) {
  if (std::string(e.what()).empty()) {
    std::fprintf(stderr, "fuzz_results_store: an input_error without a reason\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  remove_store();
  std::ofstream(store_path(), std::ios::binary)
      .write(reinterpret_cast<char const*>(data), static_cast<std::streamsize>(size));
  for (bool const read_only : {true, false}) {
    try {
      fleet::results_store const store(store_path(), read_only);
      read_everything(store);
    } catch (tracesweep::input_error const& e) {
      check_reason(e);
    }
  }
  remove_store();
  return 0;
}
