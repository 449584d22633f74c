// SPDX-License-Identifier: Apache-2.0
// README's two set-up commands: present between their markers, the first installing part of the
// second's packages and building only the tool, the test command ending with ctest, .ci/run
// extracting that very block, and the main job's sample file existing and summarising; the
// tour's blocks: each command run from the top of a checkout prints what README shows.
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"
#include "support/scratch_folder.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;
using tracesweep::test::slurp;

namespace readme_test {

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
  // The fuzz stage runs every target, and docs/cli.md names the seconds CI gives each.
  std::smatch fuzz;
  ASSERT_TRUE(
      std::regex_search(ci, fuzz, std::regex(R"(tests/fuzz/run_fuzz\.sh build-fuzz (\d+))")));
  EXPECT_NE(slurp(source / "docs/cli.md").find(fuzz[0].str()), std::string::npos)
      << "docs/cli.md does not say " << fuzz[0].str();
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

/// One block of README's tour: "$ tracesweep ARGS" and the lines it shows.
struct tour_block {
  std::string args;
  std::vector<std::string> shown;
};

/// Every fenced block of README that starts with "$ tracesweep ".
std::vector<tour_block> tour_blocks() {
  std::istringstream in(slurp(source / "README.md"));
  std::vector<tour_block> out;
  bool fenced = false, inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("```")) {
      fenced = !fenced, inside = false;
      continue;
    }
    if (fenced && !inside && line.starts_with("$ tracesweep ")) {
      out.push_back({line.substr(13), {}});
      inside = true;
    } else if (inside) {
      out.back().shown.push_back(line);
    }
  }
  return out;
}

/// Whether `printed` shows `shown` in order: "…" skips any lines, a line ending in "..." is
/// compared up to there, every other line is equal to the next one printed.
bool shows(std::vector<std::string> const& printed, std::vector<std::string> const& shown,
           std::string& why) {
  std::size_t p = 0;
  bool skipping = false;
  for (auto const& s : shown) {
    if (s == "…") {
      skipping = true;
      continue;
    }
    bool const cut = s.ends_with("...");
    auto const want = cut ? s.substr(0, s.size() - 3) : s;
    auto same = [&](std::string const& line) {
      return cut ? line.starts_with(want) : line == want;
    };
    while (skipping && p < printed.size() && !same(printed[p])) ++p;
    if (p >= printed.size() || !same(printed[p])) {
      why = "README shows a line the command does not print there:\n" + s +
            (p < printed.size() ? "\nprinted:\n" + printed[p] : std::string("\n(end)"));
      return false;
    }
    ++p, skipping = false;
  }
  if (!skipping && p != printed.size()) {
    why = "the command prints more than README shows, from:\n" + printed[p];
    return false;
  }
  return true;
}

TEST(readme, the_tour_shows_what_each_command_prints) {
  auto const blocks = tour_blocks();
  std::set<std::string> commands;
  for (auto const& b : blocks) commands.insert(b.args.substr(0, b.args.find(' ')));
  for (auto const* c : {"summary", "diagnose", "overview", "stats", "scan", "report"})
    EXPECT_TRUE(commands.count(c)) << "the tour has no " << c;
  // From a folder that holds the checkout's datasets, as its top does: the store lands there.
  tracesweep::test::scratch const dir("readme_tour");
  fs::create_directory_symlink(source / "datasets", dir.file("datasets"));
  for (auto const& b : blocks) {
    SCOPED_TRACE(b.args);
    auto const r = run_cli(b.args, 0, "cd " + quote(dir.file("")) + " && COLUMNS= ");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> printed;
    std::istringstream out(r.out);
    for (std::string line; std::getline(out, line);) printed.push_back(line);
    std::string why;
    EXPECT_TRUE(shows(printed, b.shown, why)) << why;
  }
}

TEST(readme, is_a_front_page) {
  auto const text = slurp(source / "README.md");
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 200);
  for (auto const* doc : {"docs/cli.md", "docs/metrics.md", "docs/formats.md", "docs/fleet.md",
                          "docs/diagnose.md", "CHANGELOG.md"}) {
    EXPECT_NE(text.find(std::string("](") + doc + ")"), std::string::npos) << doc;
    EXPECT_TRUE(fs::is_regular_file(source / doc)) << doc;
  }
}

}  // namespace readme_test
