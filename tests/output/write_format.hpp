// SPDX-License-Identifier: Apache-2.0
// The output of one registered format as a string, for the output tests.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <tracesweep/output/writer.hpp>

namespace tracesweep::test {

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
