// SPDX-License-Identifier: Apache-2.0
// Result tables as typed columns (frames.hpp): JSON's tables and columns, cell by cell into one
// vector per column.
#include <tracesweep/output/frames.hpp>

#include <cmath>
#include <limits>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

using nested = std::shared_ptr<result_table const>;

std::string valid_utf8(std::string_view s) {
  return rewrite_utf8(s, replacement_character,
                      [](std::string& out, unsigned char c) { out += static_cast<char>(c); });
}

/// Appends `c` to `out`, a column of type `out.type`.
void append(frame_column& out, cell const& c, column const& col) {
  bool const null = std::holds_alternative<std::monostate>(c);
  out.present.push_back(null ? 0 : 1);
  switch (out.type) {
    case value_type::integer:
      out.integers.push_back(null ? 0 : std::get<std::int64_t>(c));
      return;
    case value_type::boolean:
      out.integers.push_back(!null && std::get<bool>(c) ? 1 : 0);
      return;
    case value_type::real:
      out.reals.push_back(null ? std::numeric_limits<double>::quiet_NaN() : std::get<double>(c));
      return;
    case value_type::string:
      out.texts.push_back(null ? std::string() : valid_utf8(std::get<std::string>(c)));
      return;
    case value_type::nested:
      out.texts.push_back(null ? std::string() : json_value_text(c, col));
      return;
  }
}

frame_column empty_column(column const& col) {
  frame_column f;
  f.name = col.name;
  f.unit = col.unit;
  f.type = col.type;
  return f;
}

frame frame_of(result_table const& t) {
  frame f;
  f.name = t.name;
  f.shape = t.shape;
  auto cols = visible_columns(t, json);
  // A list is its first column's values; a map its first two columns.
  std::size_t const keep = t.shape == json_shape::list  ? 1
                           : t.shape == json_shape::map ? 2
                                                        : cols.size();
  if (cols.size() > keep) cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(keep), cols.end());
  for (auto j : cols) f.columns.push_back(empty_column(t.columns[j]));
  for_each_row(t, [&](row const& r) {
    if (t.shape == json_shape::object && f.rows == 1) return;  // JSON writes the first row
    for (std::size_t k = 0; k < cols.size(); ++k)
      append(f.columns[k], r.cells[cols[k]], t.columns[cols[k]]);
    ++f.rows;
  });
  return f;
}

}  // namespace

std::vector<frame> frames_of(result_set const& results, std::string_view table) {
  std::vector<frame> out;
  for (auto const* t : tables_for(results, json, table)) out.push_back(frame_of(*t));
  return out;
}

}  // namespace tracesweep::output
