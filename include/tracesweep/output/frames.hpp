// SPDX-License-Identifier: Apache-2.0
// Result tables as typed columns, one vector per column: what a DataFrame is built from (the
// Python module) without going through text. The tables and columns are those JSON writes, with
// JSON's names and units; a nested cell (a list, a map or rows) is carried as its JSON text, or,
// on request, a nested table of rows as a frame of its own (a report's rows: a listing of millions
// of rows never becomes text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output {

struct frame;

/// One column: the values of its type's vector, one per row, and `present` 0 where a cell is
/// null (its value then 0, NaN or no text).
struct frame_column {
  std::string name;
  std::string unit;
  value_type type = value_type::integer;
  std::vector<std::int64_t> integers;  ///< integer and boolean (0 or 1) columns
  std::vector<double> reals;           ///< real columns
  /// String and nested columns: each distinct value once (valid UTF-8; nested: JSON text), and
  /// per row the index of its value, no_text where the cell is null or carried in `tables`.
  std::vector<std::string> texts;
  std::vector<std::uint32_t> text_index;
  static constexpr std::uint32_t no_text = 0xffffffffu;
  /// Nested columns, with frame_options::nested_rows only: one per row, the cell's table as a
  /// frame where it is a table of rows, an empty frame (no columns) otherwise.
  std::vector<frame> tables;
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

/// What frames_of carries how.
struct frame_options {
  /// A nested cell holding a table of rows (json_shape::rows) as a frame in frame_column::tables
  /// rather than as JSON text.
  bool nested_rows = false;
};

/// The tables of `results` that JSON writes (only `table` when non-empty), as frames.
[[nodiscard]] std::vector<frame> frames_of(result_set const& results, std::string_view table = {},
                                           frame_options options = {});

}  // namespace tracesweep::output
