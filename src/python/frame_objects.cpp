// SPDX-License-Identifier: Apache-2.0
// Result tables (as output::frame columns) to Python: numpy arrays holding the columns' own
// vectors for numbers, str lists for strings and nested cells' JSON text, and nested tables of
// rows as frames of their own.
#include "python/python_arrays.hpp"

namespace py = pybind11;

namespace tracesweep::python {

namespace {

char const* type_name(output::value_type t) {
  switch (t) {
    case output::value_type::integer:
      return "integer";
    case output::value_type::real:
      return "real";
    case output::value_type::string:
      return "string";
    case output::value_type::boolean:
      return "boolean";
    case output::value_type::nested:
      return "nested";
  }
  return "nested";
}

char const* shape_name(output::json_shape s) {
  switch (s) {
    case output::json_shape::rows:
      return "rows";
    case output::json_shape::object:
      return "object";
    case output::json_shape::list:
      return "list";
    case output::json_shape::map:
      return "map";
  }
  return "rows";
}

/// `c`'s strings (nested: JSON texts) as a list, None where a cell is null (or, in a nested
/// column, carried as a frame); the rows of one value share one str object.
py::list text_values(output::frame_column const& c) {
  std::vector<py::str> distinct;
  distinct.reserve(c.texts.size());
  for (auto const& t : c.texts) distinct.push_back(python_text(t));
  py::list out(c.text_index.size());
  for (std::size_t i = 0; i < c.text_index.size(); ++i) {
    auto const k = c.text_index[i];
    out[i] = k == output::frame_column::no_text ? py::object(py::none()) : distinct[k];
  }
  return out;
}

py::object values_of(output::frame_column& c) {
  switch (c.type) {
    case output::value_type::integer:
    case output::value_type::boolean:
      return numpy_take(std::move(c.integers));
    case output::value_type::real:
      return numpy_take(std::move(c.reals));
    case output::value_type::string:
    case output::value_type::nested:
      break;
  }
  return text_values(c);
}

py::dict frame_object(output::frame& f);

py::dict column_object(output::frame_column& c) {
  py::dict d;
  d["name"] = python_text(c.name);
  d["unit"] = python_text(c.unit);
  d["type"] = type_name(c.type);
  d["values"] = values_of(c);
  if (!c.tables.empty()) {  // nested tables of rows as frames: a dict each, None for the others
    py::list tables(c.tables.size());
    for (std::size_t i = 0; i < c.tables.size(); ++i)
      tables[i] = c.tables[i].columns.empty() ? py::object(py::none())
                                              : py::object(frame_object(c.tables[i]));
    d["tables"] = tables;
  }
  d["present"] = numpy_take(std::move(c.present));
  return d;
}

py::dict frame_object(output::frame& f) {
  py::dict d;
  d["name"] = python_text(f.name);
  d["shape"] = shape_name(f.shape);
  d["rows"] = f.rows;
  py::list columns;
  for (auto& c : f.columns) columns.append(column_object(c));
  d["columns"] = columns;
  return d;
}

}  // namespace

py::str python_text(std::string_view s) {
  auto* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::list frame_objects(std::vector<output::frame> frames) {
  py::list out;
  for (auto& f : frames) out.append(frame_object(f));
  return out;
}

}  // namespace tracesweep::python
