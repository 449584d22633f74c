// SPDX-License-Identifier: Apache-2.0
// Where the shared real traces are: $TRACESWEEP_TRACES, else ../shared/traces beside the repo.
// Tests that need them call TRACESWEEP_REQUIRE_TRACES_DIR(); outside CI they skip when the
// folder is absent, but with TRACESWEEP_REQUIRE_TRACES=1 a missing folder fails.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

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

}  // namespace tracesweep::test

/// Yields the traces folder, or skips (fails under TRACESWEEP_REQUIRE_TRACES=1) the test.
#define TRACESWEEP_REQUIRE_TRACES_DIR(var)                                                \
  auto const var = ::tracesweep::test::traces_dir();                                      \
  if (!std::filesystem::is_directory(var)) {                                              \
    if (::tracesweep::test::traces_required())                                            \
      FAIL() << "traces folder " << var << " is missing and TRACESWEEP_REQUIRE_TRACES=1"; \
    GTEST_SKIP() << "traces folder " << var << " not found (set TRACESWEEP_TRACES)";      \
  }
