// SPDX-License-Identifier: Apache-2.0
// JSON: an object of the tables by name (or the single table's value when json_bare). Integers
// as integers, doubles in shortest round-trip form, strings valid UTF-8 (bytes that are not
// become U+FFFD). Layout: containers that hold rows are broken over lines and indented by two
// spaces per level; a row of scalars is one line; lists and maps inside a cell are compact.
#include <tracesweep/output/writer.hpp>

#include <cstdint>
#include <sstream>

#include <fmt/format.h>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

using nested = std::shared_ptr<result_table const>;

bool compact(result_table const& t) {
  return t.shape == json_shape::list || t.shape == json_shape::map;
}

/// Whether a nested table is written over several lines: it has rows, as objects.
bool holds_rows(result_table const& t) {
  return !compact(t) && row_count(t) > 0;
}

/// A scalar, or a list or map written compactly.
std::string flat_value(cell const& c, column const& col) {
  if (std::holds_alternative<std::monostate>(c)) return "null";
  if (std::holds_alternative<std::string>(c)) return json_string(std::get<std::string>(c));
  auto const* n = std::get_if<nested>(&c);
  if (!n) return data_scalar(c, col);
  auto const& t = **n;
  bool const map = t.shape == json_shape::map && t.columns.size() > 1;
  std::string s = map ? "{" : "[";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    auto const& r = t.rows[i];
    if (i) s += ',';
    if (map)
      s += json_string(data_scalar(r.cells[0], t.columns[0])) + ':' +
           flat_value(r.cells[1], t.columns[1]);
    else
      s += flat_value(r.cells[0], t.columns[0]);
  }
  return s + (map ? "}" : "]");
}

class json_document {
 public:
  explicit json_document(std::ostream& out) : _out(out) {}

  /// A table's value at nesting depth `depth`.
  void table(result_table const& t, std::size_t depth) {
    if (compact(t)) {
      _out << flat_value(nest(t), column{});
      return;
    }
    if (t.shape == json_shape::object) {
      if (row_count(t) == 0)
        _out << "null";
      else
        object(t, t.generate ? t.generate(0) : t.rows.front(), depth);
      return;
    }
    if (row_count(t) == 0) {
      _out << "[]";
      return;
    }
    _out << '[';
    std::size_t i = 0;
    for_each_row(t, [&](row const& r) {
      _out << (i++ ? ",\n" : "\n") << indent(depth + 1);
      object(t, r, depth + 1);
    });
    _out << '\n' << indent(depth) << ']';
  }

  /// All tables as members of one object.
  void tables(std::vector<result_table const*> const& ts) {
    _out << '{';
    for (std::size_t i = 0; i < ts.size(); ++i) {
      _out << (i ? ",\n" : "\n") << indent(1) << json_string(ts[i]->name) << ": ";
      table(*ts[i], 1);
    }
    _out << (ts.empty() ? "}" : "\n}");
  }

 private:
  static std::string indent(std::size_t depth) { return std::string(2 * depth, ' '); }

  /// One row as an object: on one line unless it holds rows, else one member per line.
  void object(result_table const& t, row const& r, std::size_t depth) {
    auto const cols = visible_columns(t, json);
    bool one_line = true;
    for (auto j : cols)
      if (auto const* n = std::get_if<nested>(&r.cells[j]); n && holds_rows(**n)) one_line = false;
    _out << '{';
    bool first = true;
    for (auto j : cols) {
      auto const& c = t.columns[j];
      auto const& v = r.cells[j];
      if (c.json_omit_null && std::holds_alternative<std::monostate>(v)) continue;
      if (one_line)
        _out << (first ? "" : ", ");
      else
        _out << (first ? "\n" : ",\n") << indent(depth + 1);
      _out << json_string(c.name) << ": ";
      if (auto const* n = std::get_if<nested>(&v); n && !compact(**n))
        table(**n, depth + 1);
      else
        _out << flat_value(v, c);
      first = false;
    }
    if (!one_line) _out << '\n' << indent(depth);
    _out << '}';
  }

  std::ostream& _out;
};

}  // namespace

std::string json_value_text(cell const& c, column const& col) {
  auto const* n = std::get_if<nested>(&c);
  if (!n || compact(**n)) return flat_value(c, col);
  std::ostringstream out;
  json_document(out).table(**n, 0);
  return out.str();
}

void write_json(result_set const& results, std::string_view table, std::ostream& out,
                write_options const&) {
  auto const ts = tables_for(results, json, table);
  json_document doc(out);
  if (results.json_bare && ts.size() == 1)
    doc.table(*ts.front(), 0);
  else
    doc.tables(ts);
  out << '\n';
  out.flush();
}

}  // namespace tracesweep::output
