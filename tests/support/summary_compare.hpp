// SPDX-License-Identifier: Apache-2.0
// Field-by-field summary comparison (integers equal, doubles by the caller's rule: bit-identical
// between backends, within a tolerance against an oracle), the list of trace files and reading
// one; shared by the summary oracle test, the CPU-compiled device tests and the CUDA backend test.
#pragma once

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep::test {

inline bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// A summary's floating fields, each compared by the caller's own rule.
enum class summary_double { utilization, avg_ns, median_ns, stddev_ns, share };

inline char const* field_name(summary_double f) {
  constexpr char const* names[] = {"utilization", "avg_ns", "median_ns", "stddev_ns", "share"};
  return names[static_cast<int>(f)];
}

/// The input, rank and device a device or gap row belongs to.
template <class Row>
void expect_same_place(Row const& a, Row const& b) {
  EXPECT_EQ(a.input, b.input);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.device, b.device);
}

/// `got` and `want` as many rows, each pair through `compare` under the trace "`what` row i".
template <class Rows, class Compare>
void expect_rows(Rows const& got, Rows const& want, char const* what, Compare compare) {
  ASSERT_EQ(got.size(), want.size()) << what << " rows";
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(std::string(what) + " row " + std::to_string(i));
    compare(got[i], want[i]);
  }
}

/// The device, kernel and gap rows of `got` against `want`, in order: every integer and string
/// field equal (a kernel row whose name differs is not compared further), every floating field
/// through `expect_double(field, got_value, want_value)`. The inputs are left to the caller.
template <class ExpectDouble>
void expect_same_rows(summary const& got, summary const& want, ExpectDouble expect_double) {
  expect_rows(got.devices, want.devices, "device", [&](auto const& a, auto const& b) {
    expect_same_place(a, b);
    EXPECT_EQ(a.window_start_ns, b.window_start_ns);
    EXPECT_EQ(a.window_end_ns, b.window_end_ns);
    EXPECT_EQ(a.window_ns, b.window_ns);
    EXPECT_EQ(a.busy_ns, b.busy_ns);
    EXPECT_EQ(a.idle_ns, b.idle_ns);
    expect_double(summary_double::utilization, a.utilization, b.utilization);
    EXPECT_EQ(a.kernel_ns, b.kernel_ns);
    EXPECT_EQ(a.memcpy_ns, b.memcpy_ns);
    EXPECT_EQ(a.memset_ns, b.memset_ns);
    EXPECT_EQ(a.communication_ns, b.communication_ns);
    EXPECT_EQ(a.computation_ns, b.computation_ns);
    EXPECT_EQ(a.overlap_ns, b.overlap_ns);
    EXPECT_EQ(a.kernel_count, b.kernel_count);
  });
  expect_rows(got.kernels, want.kernels, "kernel", [&](auto const& a, auto const& b) {
    ASSERT_EQ(a.name, b.name) << "kernel order";
    SCOPED_TRACE(b.name);
    EXPECT_EQ(a.calls, b.calls);
    EXPECT_EQ(a.total_ns, b.total_ns);
    expect_double(summary_double::avg_ns, a.avg_ns, b.avg_ns);
    expect_double(summary_double::median_ns, a.median_ns, b.median_ns);
    EXPECT_EQ(a.min_ns, b.min_ns);
    EXPECT_EQ(a.max_ns, b.max_ns);
    expect_double(summary_double::stddev_ns, a.stddev_ns, b.stddev_ns);
    expect_double(summary_double::share, a.share, b.share);
  });
  expect_rows(got.gaps, want.gaps, "gap", [](auto const& a, auto const& b) {
    expect_same_place(a, b);
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.end_ns, b.end_ns);
    EXPECT_EQ(a.duration_ns, b.duration_ns);
  });
}

/// Two backends' summaries: the rows with every floating field bit-identical, and as many inputs.
inline void expect_same(summary const& cpu, summary const& dev, std::string const& what) {
  SCOPED_TRACE(what);
  expect_same_rows(cpu, dev, [](summary_double f, double a, double b) {
    EXPECT_TRUE(same_bits(a, b)) << field_name(f) << ": " << a << " vs " << b;
  });
  EXPECT_EQ(cpu.inputs.size(), dev.inputs.size());
}

inline std::vector<std::filesystem::path> trace_files(std::filesystem::path const& dir) {
  std::vector<std::filesystem::path> out;
  for (auto const& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    auto const name = e.path().filename().string();
    if (name.ends_with(".md") || name.ends_with(".txt")) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Reads `path` into an empty `table`: false (and `table` emptied) when it is not a trace
/// tracesweep reads; not every file in the traces folder is one.
inline bool read_trace(std::filesystem::path const& path, event_table& table) {
  try {
    read_input(path.string(), table, read_options{});
    return true;
  } catch (input_error const&) {
    table = event_table{};
    return false;
  }
}

}  // namespace tracesweep::test
