// SPDX-License-Identifier: Apache-2.0
// Every numeric option of every command, found in its --help (CLI11's INT, UINT or FLOAT), refuses
// NaN, infinities, an empty value, words, a negative count and numbers past its range: exit 1 and
// one line naming the option, before any input is read. Valid numbers still pass, in full.
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cli/app.hpp"

namespace ts = tracesweep;

namespace numeric_options_test {

std::string const sample = TRACESWEEP_SOURCE_DIR "/datasets/samples/train_2rank.sqlite";

struct outcome {
  int code;
  std::string out, err;
};

outcome run(std::vector<std::string> const& args) {
  std::vector<char const*> argv{"tracesweep"};
  for (auto const& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  auto* const saved = std::cout.rdbuf(out.rdbuf());
  int const code = ts::cli::run(static_cast<int>(argv.size()), argv.data(), err);
  std::cout.rdbuf(saved);
  return {code, out.str(), err.str()};
}

/// The arguments a command needs besides its options (never read: options are checked first).
std::vector<std::string> operands(std::string const& command) {
  if (command == "diff") return {"a", "b"};
  if (command == "scan") return {"dir", "--db", "x.db"};
  if (command == "report") return {"--db", "x.db"};
  if (command == "merge") return {"out.db", sample};
  if (command == "generate") return {"-o", "/nonexistent/x.sqlite"};
  if (command == "stats") return {"--report", "cuda_gpu_kern_sum", sample};
  return {sample};
}

/// The options of `help` whose value is a number.
std::vector<std::string> numeric_options(std::string const& help) {
  std::vector<std::string> found;
  std::regex const line(R"(^\s+(?:-\w,)?(--[\w-]+) (?:INT|UINT|FLOAT)\b)");
  std::istringstream in(help);
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_search(l, m, line)) found.push_back(m[1]);
  return found;
}

/// (command, option) for every numeric option; the command is "" for global options.
std::vector<std::pair<std::string, std::string>> every_numeric_option() {
  std::vector<std::pair<std::string, std::string>> all;
  for (auto const& o : numeric_options(run({"--help"}).out)) all.emplace_back("", o);
  for (auto const* cmd :
       {"summary", "stats", "overview", "diagnose", "generate", "scan", "report", "diff", "merge"})
    for (auto const& o : numeric_options(run({cmd, "--help"}).out)) all.emplace_back(cmd, o);
  return all;
}

TEST(numeric_options, the_help_lists_the_options_the_issue_names) {
  std::set<std::string> seen;
  for (auto const& [cmd, opt] : every_numeric_option()) seen.insert(cmd + " " + opt);
  for (auto const* expected :
       {"diagnose --comm-threshold", "diagnose --busy-threshold", "diagnose --long-tail-factor",
        "diagnose --top", "diagnose --min-gap", "summary --top", "summary --min-gap",
        "diff --threshold", "diff --fail-above", "diff --min-share", "report --top", "scan --jobs",
        "scan --memory-limit", " --threads", " --max-event-bytes", "generate --ranks"})
    EXPECT_TRUE(seen.count(expected)) << expected;
}

TEST(numeric_options, every_one_refuses_what_is_not_a_number_in_its_range) {
  auto const options = every_numeric_option();
  ASSERT_GE(options.size(), 40u);
  for (auto const& [cmd, opt] : options) {
    for (std::string const value : {"NaN", "nan", "inf", "-inf", "1e999", "", "abc", "-1",
                                    "18446744073709551616", "1x", "0x10"}) {
      std::vector<std::string> args;
      if (!cmd.empty()) args.push_back(cmd);
      args.push_back(opt);
      args.push_back(value);
      auto const rest = operands(cmd.empty() ? "summary" : cmd);
      if (cmd.empty()) args.insert(args.end(), {"summary"});
      args.insert(args.end(), rest.begin(), rest.end());
      auto const r = run(args);
      auto const what = cmd + " " + opt + " '" + value + "'";
      EXPECT_EQ(r.code, 1) << what << ": " << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": one line: " << r.err;
      EXPECT_NE(r.err.find(opt), std::string::npos) << what << ": names the option: " << r.err;
      EXPECT_LT(r.err.size(), 160u) << what << ": short: " << r.err;
    }
  }
}

TEST(numeric_options, messages_say_what_is_wrong) {
  auto const top = run({"summary", "--top", "-1", sample});
  EXPECT_EQ(top.err, "tracesweep: --top: '-1' must be 0 or more\n");
  auto const nan = run({"diagnose", "--comm-threshold", "NaN", sample});
  EXPECT_EQ(nan.err, "tracesweep: --comm-threshold: 'NaN' is not a finite number\n");
  auto const empty = run({"summary", "--min-gap", "", sample});
  EXPECT_EQ(empty.err, "tracesweep: --min-gap: an empty value is not a number\n");
  auto const share = run({"diff", "--min-share", "1.5", "a", "b"});
  EXPECT_EQ(share.err, "tracesweep: --min-share: '1.5' is out of range [0, 1]\n");
  auto const huge = run({"summary", "--top", "18446744073709551616", sample});
  EXPECT_EQ(huge.err,
            "tracesweep: --top: '18446744073709551616' must be at most 9223372036854775807\n");
}

TEST(numeric_options, valid_numbers_pass_in_full) {
  auto const r = run(
      {"summary", "--format", "json", "--table", "gaps", "--top", "3", "--min-gap", "010", sample});
  ASSERT_EQ(r.code, 0) << r.err;
  auto const d = run({"diagnose", "--comm-threshold", "0.5", "--long-tail-factor", "2.5", "--table",
                      "verdicts", "--format", "csv", sample});
  EXPECT_EQ(d.code, 0) << d.err;
  auto const scan_limit = run({"scan", "--memory-limit", "4G", "--jobs", "1", "/nonexistent-dir",
                               "--db", "/nonexistent-dir/x.db"});
  EXPECT_EQ(scan_limit.err.find("--memory-limit"), std::string::npos) << scan_limit.err;
}

}  // namespace numeric_options_test
