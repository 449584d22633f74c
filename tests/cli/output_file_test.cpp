// SPDX-License-Identifier: Apache-2.0
// -o never destroys an input and never leaves a partial file: an output that is an input
// (directly, through a link, or inside an input folder) is refused before reading (exit 1, the
// input byte-identical); a failed write is exit 2 with one line; a success leaves only the output.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using tracesweep::test::quote;
using tracesweep::test::run_cli;
using tracesweep::test::slurp;
using tracesweep::test::tracesweep_binary;

namespace output_file_test {

struct output_file : ::testing::Test {
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("ts_output_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "job");
    input = dir / "job" / "in.sqlite";
    fs::copy_file(TRACESWEEP_SOURCE_DIR "/datasets/samples/train_2rank.sqlite", input);
    original = slurp(input);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir, input;
  std::string original;
};

bool one_line(std::string const& s) {
  return s.rfind("tracesweep: ", 0) == 0 && s.find('\n') == s.size() - 1;
}

TEST_F(output_file, an_output_that_is_an_input_is_refused_before_reading) {
  fs::create_symlink(input, dir / "link.sqlite");
  for (auto const& [out, in] :
       {std::pair{input, input}, std::pair{dir / "link.sqlite", input},
        std::pair{input, dir / "link.sqlite"}, std::pair{input, dir / "job"}}) {
    for (auto const* cmd : {"summary", "overview", "stats --report cuda_gpu_kern_sum"}) {
      auto const r = run_cli("-o " + quote(out) + " " + cmd + " " + quote(in));
      EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.err;
      EXPECT_TRUE(one_line(r.err)) << r.err;
      EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << r.err;
      EXPECT_EQ(slurp(input), original) << "the input changed";
    }
  }
}

TEST_F(output_file, a_failed_write_is_exit_2_one_line_and_leaves_nothing) {
  auto const r = run_cli("-o /dev/full summary " + quote(input));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("/dev/full: writing the output"), std::string::npos) << r.err;
  // Standard output on a full device (run_cli redirects stdout itself, so by hand).
  auto const err = dir / "err.txt";
  int const status = std::system(
      ("'" + tracesweep_binary() + "' summary " + quote(input) + " >/dev/full 2>" + quote(err))
          .c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_TRUE(one_line(slurp(err))) << slurp(err);
  EXPECT_NE(slurp(err).find("standard output: writing the output"), std::string::npos);
  fs::remove(err);
}

TEST_F(output_file, a_success_replaces_the_output_whole_and_leaves_no_temporary_file) {
  auto const out = dir / "report.json";
  std::ofstream(out) << "old contents";
  auto const r = run_cli("-o " + quote(out) + " summary --format json " + quote(input));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto const want = run_cli("summary --format json " + quote(input));
  EXPECT_EQ(slurp(out), want.out);
  std::size_t entries = 0;
  for ([[maybe_unused]] auto const& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2u) << "job/ and report.json only";
  // A failure after the output was opened keeps the old file as it was.
  std::ofstream(out, std::ios::trunc) << "old contents";
  auto const bad = run_cli("-o " + quote(out) + " summary --table bogus " + quote(input));
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_EQ(slurp(out), "old contents");
  entries = 0;
  for ([[maybe_unused]] auto const& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2u);
}

}  // namespace output_file_test
