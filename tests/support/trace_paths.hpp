// SPDX-License-Identifier: Apache-2.0
// Where the shared real traces are: $TRACESWEEP_TRACES, else ../shared/traces beside the repo.
// Tests that need them call TRACESWEEP_REQUIRE_TRACES_DIR(); outside CI they skip when the
// folder is absent, but with TRACESWEEP_REQUIRE_TRACES=1 a missing folder fails.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tracesweep::test {

inline std::filesystem::path traces_dir() {
  if (char const* env = std::getenv("TRACESWEEP_TRACES"); env && *env) return env;
  return TRACESWEEP_DEFAULT_TRACES;
}

inline bool traces_required() {
  char const* env = std::getenv("TRACESWEEP_REQUIRE_TRACES");
  return env && std::string(env) == "1";
}

/// The real jobs under `dir`: each Kineto folder (one job, a file per rank) and each nsys export,
/// sorted by path.
inline std::vector<std::filesystem::path> real_trace_jobs(std::filesystem::path const& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> jobs;
  for (auto const& e : fs::directory_iterator(dir / "kineto"))
    if (e.is_directory()) jobs.push_back(e.path());
  for (auto const& e : fs::recursive_directory_iterator(dir / "nsys"))
    if (e.is_regular_file() && e.path().extension() == ".sqlite") jobs.push_back(e.path());
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}

}  // namespace tracesweep::test

/// Yields the traces folder, or skips (fails under TRACESWEEP_REQUIRE_TRACES=1) the test.
#define TRACESWEEP_REQUIRE_TRACES_DIR(var)                                                \
  auto const var = ::tracesweep::test::traces_dir();                                      \
  if (!std::filesystem::is_directory(var)) {                                              \
    if (::tracesweep::test::traces_required())                                            \
      FAIL() << "traces folder " << var << " is missing and TRACESWEEP_REQUIRE_TRACES=1"; \
    GTEST_SKIP() << "traces folder " << var << " not found (set TRACESWEEP_TRACES)";      \
  }
