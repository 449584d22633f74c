// SPDX-License-Identifier: Apache-2.0
// A device that fails mid-summary, through the whole command line: the CUDA backend's code
// compiled with Thrust's CPP system (the twin) runs out of memory at a chosen allocation; the
// command exits 2 with one line that says how to chunk, and never aborts.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "cuda/detail/device_backend.hpp"
#include "cuda/detail/host_context.hpp"

namespace ts = tracesweep;

TEST(cli_device_error, out_of_memory_on_the_device_exits_2_with_one_line) {
  std::string const sample = TRACESWEEP_SOURCE_DIR "/datasets/samples/train_2rank.sqlite";
  for (std::size_t after : {0u, 1u, 2u, 5u}) {
    ts::cli::hooks h;
    h.make_backend = [after] {
      auto be = std::make_unique<ts::cuda_detail::device_backend<ts::cuda_detail::host_context>>(
          ts::cuda_detail::host_context{}, 0, "cuda-twin");
      be->context().fail_allocation_after(after);
      return be;
    };
    std::vector<char const*> args = {"tracesweep", "summary", sample.c_str()};
    std::ostringstream err;
    int const code = ts::cli::run(static_cast<int>(args.size()), args.data(), err, h);
    auto const line = err.str();
    EXPECT_EQ(code, 2) << "after " << after << ": " << line;
    EXPECT_EQ(line.rfind("tracesweep: summary: analysis: ", 0), 0u) << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    EXPECT_NE(line.find("out of memory"), std::string::npos) << line;
    EXPECT_NE(line.find("--device-memory-limit"), std::string::npos) << line;
  }
}
