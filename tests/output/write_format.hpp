// SPDX-License-Identifier: Apache-2.0
// The output tests' shared pieces: a result set of one table, a table whose rows are generated,
// and the output of one registered format as a string.
#pragma once

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/output/writer.hpp>

namespace tracesweep::test {

/// A result set holding `t` alone.
inline output::result_set one(output::result_table t) {
  output::result_set s;
  s.tables.push_back(std::move(t));
  return s;
}

/// `t` with its rows handed out one at a time (result_table::generate), counting the calls.
inline output::result_table generated(output::result_table t, std::size_t& calls) {
  auto rows = std::make_shared<std::vector<output::row>>(std::move(t.rows));
  t.rows.clear();
  t.generated_rows = rows->size();
  t.generate = [rows, &calls](std::size_t i) {
    ++calls;
    return (*rows)[i];
  };
  return t;
}

/// What the writer of `format` writes for `s` (only `table` when non-empty).
inline std::string write(std::string_view format, output::result_set const& s,
                         std::string_view table = "", output::write_options const& options = {}) {
  std::ostringstream o;
  auto const writer = output::find_writer(format);
  EXPECT_NE(writer, nullptr) << format;
  if (writer) writer(s, table, o, options);
  return o.str();
}

}  // namespace tracesweep::test
