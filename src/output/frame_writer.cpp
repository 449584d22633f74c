// SPDX-License-Identifier: Apache-2.0
// Result tables as typed columns (frames.hpp): JSON's tables and columns, cell by cell into one
// vector per column (each distinct text once); nested tables of rows recursively on request.
#include <tracesweep/output/frames.hpp>

#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <unordered_map>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

using nested = std::shared_ptr<result_table const>;

std::string valid_utf8(std::string_view s) {
  return rewrite_utf8(s, replacement_character,
                      [](std::string& out, unsigned char c) { out += static_cast<char>(c); });
}

frame frame_of(result_table const& t, frame_options options);

/// `v` as JSON writes it in `col`: a column published rounded (column::fixed) holds the value of
/// its printed decimals.
double published(double v, column const& col) {
  if (!col.fixed || col.decimals < 0 || !std::isfinite(v)) return v;
  auto const text = data_scalar(v, col);
  double out = v;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

/// One column being filled: the column, and its distinct texts so far by their cell's bytes.
struct column_builder {
  frame_column& out;
  column const& col;
  std::deque<std::string> seen;  ///< the distinct cell texts, where text_at's keys point
  std::unordered_map<std::string_view, std::uint32_t> text_at;

  /// Appends a row holding the text `raw` (made valid UTF-8 when first seen).
  void add_text(std::string_view raw) {
    if (auto const at = text_at.find(raw); at != text_at.end()) {
      out.text_index.push_back(at->second);
      return;
    }
    auto const index = static_cast<std::uint32_t>(out.texts.size());
    text_at.emplace(seen.emplace_back(raw), index);
    out.texts.push_back(valid_utf8(raw));
    out.text_index.push_back(index);
  }

  /// Appends the nested cell `c` (not null): its JSON text, or its table of rows as a frame
  /// when `options` asks for one.
  void add_nested(cell const& c, frame_options options) {
    if (!options.nested_rows) return add_text(json_value_text(c, col));
    auto const& held = std::get<nested>(c);
    if (held && held->shape == json_shape::rows) {
      out.tables.push_back(frame_of(*held, options));
      if (!out.tables.back().columns.empty()) {
        out.text_index.push_back(frame_column::no_text);
        return;
      }
      out.tables.back() = frame{};  // no column JSON shows: its text says what it is
    } else {
      out.tables.emplace_back();
    }
    add_text(json_value_text(c, col));
  }

  /// Appends `c`, a cell of the column's type.
  void add(cell const& c, frame_options options) {
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
        out.reals.push_back(null ? std::numeric_limits<double>::quiet_NaN()
                                 : published(std::get<double>(c), col));
        return;
      case value_type::string:
      case value_type::nested:
        break;
    }
    if (null) {
      out.text_index.push_back(frame_column::no_text);
      if (options.nested_rows && out.type == value_type::nested) out.tables.emplace_back();
    } else if (out.type == value_type::string) {
      add_text(std::get<std::string>(c));
    } else {
      add_nested(c, options);
    }
  }
};

frame_column empty_column(column const& col, std::size_t rows) {
  frame_column f;
  f.name = col.name;
  f.unit = col.unit;
  f.type = col.type;
  f.present.reserve(rows);
  if (col.type == value_type::real)
    f.reals.reserve(rows);
  else if (col.type == value_type::integer || col.type == value_type::boolean)
    f.integers.reserve(rows);
  else
    f.text_index.reserve(rows);
  return f;
}

frame frame_of(result_table const& t, frame_options options) {
  frame f;
  f.name = t.name;
  f.shape = t.shape;
  auto cols = visible_columns(t, json);
  // A list is its first column's values; a map its first two columns.
  std::size_t const keep = t.shape == json_shape::list  ? 1
                           : t.shape == json_shape::map ? 2
                                                        : cols.size();
  if (cols.size() > keep) cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(keep), cols.end());
  auto const rows =
      t.shape == json_shape::object ? std::min<std::size_t>(row_count(t), 1) : row_count(t);
  for (auto j : cols) f.columns.push_back(empty_column(t.columns[j], rows));
  std::vector<column_builder> builders;
  builders.reserve(cols.size());
  for (std::size_t k = 0; k < cols.size(); ++k)
    builders.push_back(column_builder{f.columns[k], t.columns[cols[k]], {}, {}});
  for_each_row(t, [&](row const& r) {
    if (t.shape == json_shape::object && f.rows == 1) return;  // JSON writes the first row
    for (std::size_t k = 0; k < cols.size(); ++k) builders[k].add(r.cells[cols[k]], options);
    ++f.rows;
  });
  return f;
}

}  // namespace

std::vector<frame> frames_of(result_set const& results, std::string_view table,
                             frame_options options) {
  std::vector<frame> out;
  for (auto const* t : tables_for(results, json, table)) out.push_back(frame_of(*t, options));
  return out;
}

}  // namespace tracesweep::output
