// SPDX-License-Identifier: Apache-2.0
// Runs the built tracesweep binary and captures exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tracesweep::test {

struct cli_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The tracesweep binary the tests run: this build's, or $TRACESWEEP_TEST_BINARY when set (to
/// show a test failing on an older build).
inline std::string tracesweep_binary() {
  auto const* other = std::getenv("TRACESWEEP_TEST_BINARY");
  return other && *other ? other : TRACESWEEP_BINARY;
}

/// `args` is appended to the binary's path as shell words (quote paths yourself). With
/// `timeout_s` > 0 the binary runs under timeout(1): killed after that long (exit code 124).
/// `wrapper`: shell words before the binary's path (a command that runs it).
inline cli_result run_cli(std::string const& args, int timeout_s = 0,
                          std::string const& wrapper = "") {
  auto const dir = std::filesystem::temp_directory_path();
  auto const tag = std::to_string(::getpid()) + "_" + std::to_string(std::rand());
  auto const out = dir / ("ts_out_" + tag), err = dir / ("ts_err_" + tag);
  std::string cmd = (timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : "") +
                    wrapper + "'" + tracesweep_binary() + "' " + args + " >'" + out.string() +
                    "' 2>'" + err.string() + "' </dev/null";
  int const status = std::system(cmd.c_str());
  cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

/// `p` as one shell word: in single quotes, an embedded ' written as '\''.
inline std::string quote(std::filesystem::path const& p) {
  // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "'" + s + "'".
  std::string s(1, '\'');
  for (char c : p.string()) {
    if (c == '\'')
      s += "'\\''";
    else
      s += c;
  }
  s += '\'';
  return s;
}

}  // namespace tracesweep::test
