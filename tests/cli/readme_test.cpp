// SPDX-License-Identifier: Apache-2.0
// README's two set-up commands: present between their markers, the test command ends with
// ctest, .ci/run extracts that very block, and the main job's sample file exists and summarises.
#include <filesystem>
#include <regex>
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

TEST(readme, both_commands_are_there_and_install_the_same_packages) {
  auto const main_cmd = readme_block("main-command");
  auto const test_cmd = readme_block("test-command");
  ASSERT_FALSE(main_cmd.empty());
  ASSERT_FALSE(test_cmd.empty());
  EXPECT_EQ(main_cmd.substr(0, main_cmd.find("&& cmake")),
            test_cmd.substr(0, test_cmd.find("&& cmake")));
  EXPECT_NE(main_cmd.find("apt-get install"), std::string::npos);
  EXPECT_NE(main_cmd.find("-DCMAKE_BUILD_TYPE=Release"), std::string::npos);
  EXPECT_NE(test_cmd.find("ctest --test-dir build"), std::string::npos);
  EXPECT_EQ(test_cmd.find('\n'), test_cmd.size() - 1) << "one line, copy-pasteable";
  auto const ci = slurp(source / ".ci/run");
  EXPECT_NE(ci.find("<!-- begin: test-command -->"), std::string::npos);
  EXPECT_NE(ci.find("<!-- end: test-command -->"), std::string::npos);
  EXPECT_NE(ci.find("TRACESWEEP_REQUIRE_TRACES=1"), std::string::npos);
  EXPECT_NE(ci.find("TRACESWEEP_REQUIRE_BROWSER=1"), std::string::npos);
  for (auto const* package : {"chromium", "libpng-dev"}) {  // the browser test's
    EXPECT_NE(main_cmd.find(package), std::string::npos) << package;
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
