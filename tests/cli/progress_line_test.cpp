// SPDX-License-Identifier: Apache-2.0
// The read progress line: under a pseudo-terminal (script(1) runs tracesweep on one) it appears
// on stderr, redrawn in place and cleared at the end; in a pipe, with --quiet, or for a read
// shorter than the default delay of about a second it never appears.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/run_cli.hpp"

namespace progress_line_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

fs::path const sample = fs::path(TRACESWEEP_SOURCE_DIR) / "datasets/samples/train_2rank.sqlite";

/// What the terminal shows while `args` runs on a pseudo-terminal, stdout sent to /dev/null (so
/// only stderr reaches it), with `env` before the command.
std::string on_a_terminal(std::string const& env, std::string const& args) {
  auto const out = fs::temp_directory_path() / ("ts_pty_" + std::to_string(::getpid()));
  auto const inner = env + " '" + tracesweep_binary() + "' " + args + " >/dev/null";
  auto const cmd = "script -q -e -c " + quote(inner) + " /dev/null >" + quote(out) + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto text = slurp(out);
  fs::remove(out);
  return text;
}

TEST(ProgressLine, ShowsOnATerminalAndIsClearedAtTheEnd) {
  auto const shown = on_a_terminal("TRACESWEEP_PROGRESS_DELAY_MS=0", "summary " + quote(sample));
  auto const line = shown.find("\r\033[Kreading train_2rank.sqlite: ");
  ASSERT_NE(line, std::string::npos) << shown;
  EXPECT_EQ(shown.find("reading :"), std::string::npos) << "drawn before a file opened: " << shown;
  EXPECT_NE(shown.find(" MB/s, ETA ", line), std::string::npos) << shown;
  EXPECT_TRUE(shown.ends_with("\r\033[K")) << "cleared when done: " << shown;
}

TEST(ProgressLine, NeverInAPipeWithQuietOrForAShortRead) {
  auto const piped = run_cli("summary " + quote(sample), 0, "TRACESWEEP_PROGRESS_DELAY_MS=0 ");
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.err.find("reading"), std::string::npos) << piped.err;
  EXPECT_EQ(piped.err.find('\033'), std::string::npos) << piped.err;
  auto const quiet =
      on_a_terminal("TRACESWEEP_PROGRESS_DELAY_MS=0", "--quiet summary " + quote(sample));
  EXPECT_EQ(quiet.find("reading"), std::string::npos) << quiet;
  // The sample reads in far less than the default delay.
  auto const fast = on_a_terminal("", "summary " + quote(sample));
  EXPECT_EQ(fast.find("reading"), std::string::npos) << fast;
}

}  // namespace progress_line_test
