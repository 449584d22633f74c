// SPDX-License-Identifier: Apache-2.0
// Every command's --help ends with two or three examples, and every example runs: in a scratch
// folder holding the checkout's datasets/samples, in the order the commands list them (later
// examples read what earlier ones write), each exits 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"

namespace help_examples_test {

namespace fs = std::filesystem;
using namespace tracesweep::test;

/// The command names the top-level help lists under "Subcommands:".
std::vector<std::string> commands() {
  std::istringstream help(run_cli("--help").out);
  std::vector<std::string> out;
  bool in = false;
  for (std::string line; std::getline(help, line);) {
    if (line.starts_with("Subcommands:")) {
      in = true;
      continue;
    }
    if (in && line.starts_with("  ") && line.size() > 2 && line[2] != ' ')
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return out;
}

/// The arguments of the "  tracesweep …" lines after "Examples" in `command`'s help.
std::vector<std::string> examples(std::string const& command) {
  std::istringstream help(run_cli(command + " --help").out);
  std::vector<std::string> out;
  bool in = false;
  for (std::string line; std::getline(help, line);) {
    if (line.starts_with("Examples")) in = true;
    std::string const lead = "  tracesweep ";
    if (in && line.starts_with(lead)) out.push_back(line.substr(lead.size()));
  }
  return out;
}

TEST(HelpExamples, EveryCommandEndsWithExamplesThatRun) {
  auto const names = commands();
  ASSERT_GE(names.size(), 9u);
  auto const dir = fs::temp_directory_path() / ("ts_examples_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "datasets");
  fs::create_directory_symlink(fs::path(TRACESWEEP_SOURCE_DIR) / "datasets" / "samples",
                               dir / "datasets" / "samples");
  // generate first: the others read the jobs it writes.
  std::vector<std::string> order{"generate"};
  for (auto const& n : names)
    if (n != "generate") order.push_back(n);
  std::size_t ran = 0;
  for (auto const& name : order) {
    auto const lines = examples(name);
    ran += lines.size();
    EXPECT_GE(lines.size(), 2u) << name;
    EXPECT_LE(lines.size(), 3u) << name;
    for (auto const& args : lines) {
      auto const r = run_cli(args, 0, "cd " + quote(dir) + " && timeout -k 5 120 ");
      EXPECT_EQ(r.exit_code, 0) << "tracesweep " << args << "\n" << r.err;
      // An example writes to stdout, or to the file it names with -o.
      if (r.out.empty()) {
        auto const o = args.find("-o ");
        ASSERT_NE(o, std::string::npos) << "tracesweep " << args << " printed nothing";
        auto const file = args.substr(o + 3, args.find(' ', o + 3) - o - 3);
        EXPECT_TRUE(fs::is_regular_file(dir / file)) << args;
      }
    }
  }
  EXPECT_GE(ran, 2 * names.size());
  fs::remove_all(dir);
}

}  // namespace help_examples_test
