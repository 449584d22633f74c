// SPDX-License-Identifier: Apache-2.0
// README's two set-up commands: present between their markers, the first installing part of the
// second's packages and building only the tool, the test command ending with ctest, .ci/run
// extracting that very block, and the main job's sample file existing and summarising.
#include <filesystem>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;
using tracesweep::test::slurp;

namespace {

fs::path const source = TRACESWEEP_SOURCE_DIR;

/// The shell command inside the fenced block between <!-- begin: NAME --> and <!-- end: NAME -->.
std::string readme_block(std::string const& name) {
  auto const text = slurp(source / "README.md");
  auto const b = text.find("<!-- begin: " + name + " -->");
  auto const e = text.find("<!-- end: " + name + " -->");
  if (b == std::string::npos || e == std::string::npos || e < b) return {};
  auto block = text.substr(b, e - b);
  auto const open = block.find("```bash\n");
  auto const close = block.rfind("```");
  if (open == std::string::npos || close <= open) return {};
  return block.substr(open + 8, close - open - 8);
}

/// The words of the command's pkgs="…".
std::set<std::string> packages_of(std::string const& command) {
  std::smatch m;
  if (!std::regex_search(command, m, std::regex(R"re(pkgs="([^"]*)")re"))) return {};
  std::istringstream words(m[1].str());
  return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
}

TEST(readme, both_commands_are_there_and_the_first_builds_only_the_tool) {
  auto const main_cmd = readme_block("main-command");
  auto const test_cmd = readme_block("test-command");
  ASSERT_FALSE(main_cmd.empty());
  ASSERT_FALSE(test_cmd.empty());
  // The main command installs a part of the test command's packages, the same way, and builds
  // the tracesweep target alone.
  auto const main_packages = packages_of(main_cmd), test_packages = packages_of(test_cmd);
  ASSERT_FALSE(main_packages.empty());
  for (auto const& p : main_packages) EXPECT_TRUE(test_packages.count(p)) << p;
  auto const install = [](std::string const& c) {
    return c.substr(c.find("; dpkg -s"), c.find("&& cmake") - c.find("; dpkg -s"));
  };
  EXPECT_EQ(install(main_cmd), install(test_cmd));
  EXPECT_NE(main_cmd.find("cmake --build build --target tracesweep &&"), std::string::npos);
  EXPECT_NE(test_cmd.find("cmake --build build &&"), std::string::npos);
  EXPECT_NE(main_cmd.find("apt-get install"), std::string::npos);
  EXPECT_NE(main_cmd.find("-DCMAKE_BUILD_TYPE=Release"), std::string::npos);
  EXPECT_NE(test_cmd.find("ctest --test-dir build"), std::string::npos);
  EXPECT_EQ(main_cmd.find('\n'), main_cmd.size() - 1) << "one line, copy-pasteable";
  EXPECT_EQ(test_cmd.find('\n'), test_cmd.size() - 1) << "one line, copy-pasteable";
  auto const ci = slurp(source / ".ci/run");
  EXPECT_NE(ci.find("<!-- begin: test-command -->"), std::string::npos);
  EXPECT_NE(ci.find("<!-- end: test-command -->"), std::string::npos);
  EXPECT_NE(ci.find("TRACESWEEP_REQUIRE_TRACES=1"), std::string::npos);
  EXPECT_NE(ci.find("TRACESWEEP_REQUIRE_BROWSER=1"), std::string::npos);
  for (auto const* package : {"chromium", "libpng-dev"}) {  // the browser test's
    EXPECT_NE(test_cmd.find(package), std::string::npos) << package;
    EXPECT_NE(ci.find(package), std::string::npos) << package;
  }
  EXPECT_NE(ci.find("-DTRACESWEEP_SANITIZE=ON"), std::string::npos);
  EXPECT_NE(ci.find("-LE large"), std::string::npos);
  for (auto const* package : {"clang", "libfuzzer-14-dev"}) {  // the fuzz stage's
    EXPECT_NE(test_cmd.find(package), std::string::npos) << package;
    EXPECT_NE(ci.find(package), std::string::npos) << package;
  }
  EXPECT_NE(ci.find("-DTRACESWEEP_FUZZ=ON"), std::string::npos);
  EXPECT_NE(ci.find("tests/fuzz/run_fuzz.sh build-fuzz 60"), std::string::npos);
}

TEST(readme, main_job_sample_exists_and_summarises) {
  auto const main_cmd = readme_block("main-command");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(main_cmd, m, std::regex(R"(summary (datasets/\S+))")));
  auto const sample = source / m[1].str();
  ASSERT_TRUE(fs::is_regular_file(sample)) << sample;
  auto const r = run_cli("summary " + quote(sample));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Devices ("), std::string::npos);
  EXPECT_NE(r.out.find("Kernels ("), std::string::npos);
}

}  // namespace
