// SPDX-License-Identifier: Apache-2.0
// Result tables as typed columns, one vector per column: what a DataFrame is built from (the
// Python module) without going through text. The tables and columns are those JSON writes, with
// JSON's names and units; a nested cell (a list, a map or rows) is carried as its JSON text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output {

/// One column: the values of its type's vector, one per row, and `present` 0 where a cell is
/// null (its value then 0, NaN or "").
struct frame_column {
  std::string name;
  std::string unit;
  value_type type = value_type::integer;
  std::vector<std::int64_t> integers;  ///< integer and boolean (0 or 1) columns
  std::vector<double> reals;           ///< real columns
  std::vector<std::string> texts;      ///< string columns (valid UTF-8); nested: JSON text
  std::vector<std::uint8_t> present;
};

/// One table as columns. A table JSON writes as an object has one row; a list, one column; a
/// map, two (key and value).
struct frame {
  std::string name;
  json_shape shape = json_shape::rows;
  std::vector<frame_column> columns;
  std::size_t rows = 0;
};

/// The tables of `results` that JSON writes (only `table` when non-empty), as frames.
[[nodiscard]] std::vector<frame> frames_of(result_set const& results, std::string_view table = {});

}  // namespace tracesweep::output
