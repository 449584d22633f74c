// SPDX-License-Identifier: Apache-2.0
// The error boundary: whatever escapes a command becomes one line `tracesweep: …` and exit 2
// (1 for usage), never an abort — checked through cli::run with a backend that fails mid-analysis
// and through report_error for every error class.
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/error.hpp>

#include "cli/app.hpp"
#include "support/failing_backend.hpp"

namespace ts = tracesweep;

namespace error_boundary_test {

std::string const sample = TRACESWEEP_SOURCE_DIR "/datasets/samples/train_2rank.sqlite";

bool one_line(std::string const& s) {
  return !s.empty() && s.rfind("tracesweep: ", 0) == 0 && s.find('\n') == s.size() - 1;
}

struct outcome {
  int code;
  std::string err;
};

outcome run(std::vector<char const*> args, ts::cli::hooks const& h = {}) {
  args.insert(args.begin(), "tracesweep");
  std::ostringstream err;
  int const code = ts::cli::run(static_cast<int>(args.size()), args.data(), err, h);
  return {code, err.str()};
}

outcome report(std::exception_ptr e) {
  std::ostringstream err;
  int const code = ts::cli::report_error(e, "summary: analysis", err);
  return {code, err.str()};
}

/// A backend whose every primitive throws `E` (what a failing device or an overflow does).
template <class E>
ts::cli::hooks failing_backend(char const* why) {
  ts::cli::hooks h;
  h.make_backend = [why] {
    return ts::test::make_failing_backend(std::make_exception_ptr(E(why)));
  };
  return h;
}

TEST(error_boundary, every_error_class_is_one_line_with_its_exit_code) {
  struct row {
    std::exception_ptr e;
    int code;
    char const* contains;
  };
  std::vector<row> const rows = {
      {std::make_exception_ptr(ts::input_error("a.json", "byte 7", "bad\nvalue")), 2,
       "a.json: byte 7: bad\\nvalue"},
      // A pattern option names itself while parsing (regex_check); the boundary guesses none.
      {std::make_exception_ptr(ts::pattern_error("(", "missing )")), 1,
       "tracesweep: '(': invalid regular expression: missing )"},
      {std::make_exception_ptr(ts::backend_unavailable("no GPU")), 2, "--backend cuda: no GPU"},
      {std::make_exception_ptr(ts::usage_error("-o x: cannot open")), 1, "-o x: cannot open"},
      {std::make_exception_ptr(std::bad_alloc()), 2, "summary: analysis: out of memory"},
      {std::make_exception_ptr(std::overflow_error("sum of group 3\n")), 2,
       "summary: analysis: arithmetic overflow: sum of group 3"},
      {std::make_exception_ptr(std::runtime_error("cudaErrorIllegalAddress")), 2,
       "summary: analysis: cudaErrorIllegalAddress"},
      {std::make_exception_ptr(42), 2, "summary: analysis: unknown error"},
  };
  for (auto const& r : rows) {
    auto const o = report(r.e);
    EXPECT_EQ(o.code, r.code) << o.err;
    EXPECT_TRUE(one_line(o.err)) << o.err;
    EXPECT_NE(o.err.find(r.contains), std::string::npos) << o.err;
  }
}

TEST(error_boundary, a_failure_inside_the_analysis_exits_2_with_one_line) {
  for (auto const* cmd : {"summary", "overview"}) {
    auto const o = run({cmd, sample.c_str()}, failing_backend<std::overflow_error>("busy time"));
    EXPECT_EQ(o.code, 2) << cmd;
    EXPECT_TRUE(one_line(o.err)) << o.err;
    // An overflow in the analysis is a property of the data: the line names the input.
    EXPECT_NE(o.err.find(sample + ": arithmetic overflow: busy time"), std::string::npos) << o.err;
  }
  auto const oom = run({"stats", "--report", "cuda_gpu_kern_sum", sample.c_str()}, [] {
    ts::cli::hooks h;
    h.make_backend = [] {
      return ts::test::make_failing_backend(std::make_exception_ptr(std::bad_alloc()));
    };
    return h;
  }());
  EXPECT_EQ(oom.code, 2);
  EXPECT_TRUE(one_line(oom.err)) << oom.err;
  EXPECT_NE(oom.err.find("stats: analysis: out of memory"), std::string::npos) << oom.err;
}

TEST(error_boundary, parse_errors_are_one_line_usage_errors) {
  for (auto const& args : std::vector<std::vector<char const*>>{
           {"summary", "--bogus", sample.c_str()}, {"summary"}, {"bogus"}, {}}) {
    auto const o = run(args);
    EXPECT_EQ(o.code, 1);
    EXPECT_TRUE(one_line(o.err)) << o.err;
  }
}

}  // namespace error_boundary_test
