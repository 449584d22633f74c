// SPDX-License-Identifier: Apache-2.0
// row_refs, the per-row row numbers of the model's parts (launchers, parents): the same entries
// in the narrow (4-byte) form and the wide (8-byte) one the tests force below 2^32 rows, against
// a plain vector of int64.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "model/model_parts.hpp"

namespace model_parts_test {

TEST(RowRefs, NarrowAndWideFormsHoldTheSameRows) {
  std::mt19937_64 rng(3);
  std::size_t const n = 5000;
  std::vector<std::int64_t> want(n, -1);
  tracesweep::row_refs narrow(n);
  tracesweep::row_refs wide(n, 16);  // 5000 rows reach the limit: the wide form
  for (int k = 0; k < 20000; ++k) {
    auto const i = static_cast<std::size_t>(rng() % n);
    // Rows up to the largest the narrow form holds, and none again.
    auto const row = rng() % 4 == 0 ? std::int64_t{-1}
                     : rng() % 2    ? static_cast<std::int64_t>(rng() % n)
                                    : std::int64_t{tracesweep::row_refs::none32} - 1;
    want[i] = row;
    narrow.set(i, row), wide.set(i, row);
  }
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(narrow[i], want[i]) << i;
    ASSERT_EQ(wide[i], want[i]) << i;
  }
  // Past 32 bits only the wide form is used (a table of 2^32 - 1 rows or more).
  tracesweep::row_refs wide_rows(3, 1);
  wide_rows.set(1, std::int64_t{1} << 40);
  EXPECT_EQ(wide_rows[1], std::int64_t{1} << 40);
  EXPECT_EQ(wide_rows[0], -1);
}

}  // namespace model_parts_test
