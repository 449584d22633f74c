// SPDX-License-Identifier: Apache-2.0
// Parity suite: every summary on every trace in ../shared/traces, computed by the CPU backend
// and by the device algorithms compiled for the CPU (host twin context), unlimited, with a
// 64 MiB device memory limit, and with a limit that splits most traces into ≥ 10 chunks
// (checked; the limits include the twin's fixed temporary storage). Integers must be equal and
// floating values bit-identical. The same for every diagnosis, compared as the JSON documents the
// CLI writes.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sstream>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/output/writer.hpp>

#include "cuda/detail/device_backend.hpp"
#include "cuda/detail/host_context.hpp"
#include "support/summary_compare.hpp"
#include "support/trace_paths.hpp"

namespace tracesweep::cuda_detail {
namespace {

using test::expect_same;
using test::trace_files;

TEST(DeviceParity, EverySummaryOnEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::size_t compared = 0;
  std::size_t chunked = 0;  // traces whose small-limit run took at least 10 chunks
  for (auto const& path : trace_files(dir)) {
    event_table table;
    if (!test::read_trace(path, table)) continue;  // parity is about the files it reads
    summary_options const options;
    auto cpu = make_cpu_backend(0);
    auto const reference = compute_summary(trace_model(table), *cpu, options);
    // bytes per device row of the largest primitive, the union of every device row: a twelfth
    // of it per chunk gives >= 10 chunks of that one call
    auto const device_rows = static_cast<std::size_t>(
        std::count_if(table.kind.begin(), table.kind.end(), is_device_activity));
    std::size_t const small = host_context::temporary_reserve +
                              std::max<std::size_t>(1024, device_rows * bytes_per_row::union_ / 12);
    for (std::size_t limit : {std::size_t{0}, std::size_t{64} << 20, small}) {
      device_backend<host_context> dev(host_context{}, limit, "cuda-twin");
      auto const got = compute_summary(trace_model(table), dev, options);
      expect_same(reference, got, path.string() + " limit " + std::to_string(limit));
      if (limit) {
        EXPECT_LE(dev.context().memory().peak, limit) << path;
      }
      if (limit == small && dev.chunks_run() >= 10) ++chunked;
    }
    ++compared;
  }
  EXPECT_GT(compared, 10u) << "too few traces were read from " << dir;
  EXPECT_GE(chunked, 10u) << "the small memory limit chunked too few traces";
}

/// The diagnosis of `table` on `be`, as the JSON document the CLI writes.
std::string diagnosis_json(event_table const& table, backend& be) {
  std::ostringstream out;
  output::find_writer("json")(diagnose_results(diagnose(trace_model(table), be, {})), "", out, {});
  return out.str();
}

TEST(DeviceParity, EveryDiagnosisOnEveryTrace) {
  TRACESWEEP_REQUIRE_TRACES_DIR(dir);
  std::size_t compared = 0;
  for (auto const& path : trace_files(dir)) {
    event_table table;
    if (!test::read_trace(path, table)) continue;
    auto cpu = make_cpu_backend(0);
    auto const reference = diagnosis_json(table, *cpu);
    for (std::size_t limit : {std::size_t{0}, host_context::temporary_reserve + (8 << 10)}) {
      device_backend<host_context> dev(host_context{}, limit, "cuda-twin");
      EXPECT_EQ(diagnosis_json(table, dev), reference) << path << " limit " << limit;
    }
    ++compared;
  }
  EXPECT_GT(compared, 10u) << "too few traces were read from " << dir;
}

}  // namespace
}  // namespace tracesweep::cuda_detail
