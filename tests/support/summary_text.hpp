// SPDX-License-Identifier: Apache-2.0
// The summary's kernels as the tests read them: their names from JSON, and the name cell of a
// line of the text's kernel table.
#pragma once

#include <simdjson.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_cli.hpp"

namespace tracesweep::test {

/// The summary's kernel names (JSON), in the order of its kernels table.
inline std::vector<std::string> summary_kernel_names(std::filesystem::path const& f) {
  auto const r = run_cli("summary --format json " + quote(f));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  std::vector<std::string> names;
  for (auto k : parser.parse(r.out)["kernels"].get_array())
    names.emplace_back(std::string_view(k["name"]));
  return names;
}

/// The name cell of a line of the summary's kernel table: what follows its eight number columns
/// (calls … share).
inline std::string kernel_name_cell(std::string const& line) {
  std::size_t pos = 0;
  for (int column = 0; column < 8; ++column) {
    pos = line.find_first_not_of(' ', pos);
    pos = line.find(' ', pos);
  }
  return line.substr(line.find_first_not_of(' ', pos));
}

}  // namespace tracesweep::test
