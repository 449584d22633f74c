// SPDX-License-Identifier: Apache-2.0
// cuda_gpu_trace's Throughput (B/s) against SQLite evaluating nsys's own expression,
// `bytes * (1000000000 / duration)`, on the same values: products that fit in 64 bits (an
// INTEGER, the division truncated first) and products that overflow (SQLite's REAL), both signs
// of the duration, and a zero duration (NULL).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <tracesweep/reports/nsys/gpu_trace.hpp>

namespace {

using namespace tracesweep;
using output::cell;

/// What SQLite computes for `bytes * (1000000000 / duration)`: NULL, an INTEGER or a REAL.
cell sqlite_throughput(sqlite3* db, std::int64_t bytes, std::int64_t duration) {
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT ?1 * (1000000000 / ?2)", -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_int64(stmt, 1, bytes);
  sqlite3_bind_int64(stmt, 2, duration);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  cell out;
  switch (sqlite3_column_type(stmt, 0)) {
    case SQLITE_INTEGER:
      out = static_cast<std::int64_t>(sqlite3_column_int64(stmt, 0));
      break;
    case SQLITE_FLOAT:
      out = sqlite3_column_double(stmt, 0);
      break;
    case SQLITE_NULL:
      break;
    default:
      ADD_FAILURE() << "unexpected SQLite type";
  }
  sqlite3_finalize(stmt);
  return out;
}

/// Our Throughput cell for each (bytes, duration) (the report's column is made by it: the report's
/// tests compare the whole column with nsys's SQL on real exports).
std::vector<cell> throughput_cells(std::vector<std::pair<std::int64_t, std::int64_t>> const& v) {
  std::vector<cell> out;
  for (auto const& [bytes, duration] : v) out.push_back(gpu_trace_throughput(bytes, duration));
  return out;
}

std::string describe(cell const& c) {
  if (auto const* i = std::get_if<std::int64_t>(&c)) return "INTEGER " + std::to_string(*i);
  if (auto const* d = std::get_if<double>(&c)) return "REAL " + std::to_string(*d);
  if (std::holds_alternative<std::monostate>(c)) return "NULL";
  return "other";
}

TEST(GpuTraceThroughput, EqualsSqliteWithAndWithoutOverflow) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> const bytes = {
      0, 1, 4096, 1'000'000'007, 9'223'372'036, 9'223'372'037, 1LL << 40, max / 3, max};
  std::vector<std::int64_t> const durations = {
      1, 2,  3, 7, 999, 1'000'000, 999'999'999, 1'000'000'000, 1'000'000'001, 3'000'000'000,
      0, -1, -3};
  std::vector<std::pair<std::int64_t, std::int64_t>> cases;
  for (auto b : bytes)
    for (auto d : durations) cases.emplace_back(b, d);

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  auto const ours = throughput_cells(cases);
  ASSERT_EQ(ours.size(), cases.size());
  std::size_t overflowed = 0, integers = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    auto const expected = sqlite_throughput(db, cases[k].first, cases[k].second);
    overflowed += std::holds_alternative<double>(expected);
    integers += std::holds_alternative<std::int64_t>(expected);
    EXPECT_EQ(describe(ours[k]), describe(expected))
        << "bytes " << cases[k].first << ", duration " << cases[k].second;
    EXPECT_TRUE(ours[k] == expected)
        << "bytes " << cases[k].first << ", duration " << cases[k].second;
  }
  sqlite3_close(db);
  // Both paths are exercised: products that fit and products SQLite turns into REALs.
  EXPECT_GE(overflowed, 10u);
  EXPECT_GE(integers, 50u);
}

}  // namespace
