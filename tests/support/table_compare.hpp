// SPDX-License-Identifier: Apache-2.0
// Two event tables with the same rows in the same order: every column equal, names compared as
// strings (each table has its own string pool).
#pragma once

#include <cstddef>

#include <gtest/gtest.h>

#include <tracesweep/event_table.hpp>

namespace tracesweep::test {

inline void expect_same_rows(event_table const& a, event_table const& b) {
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.subkind, b.subkind);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.byte_counts.row, b.byte_counts.row);
  EXPECT_EQ(a.byte_counts.values, b.byte_counts.values);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a.strings().at(a.name[i]), b.strings().at(b.name[i])) << "row " << i;
}

}  // namespace tracesweep::test
