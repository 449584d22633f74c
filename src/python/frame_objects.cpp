// SPDX-License-Identifier: Apache-2.0
// Result tables (as output::frame columns) to Python: numpy arrays for numbers, str lists for
// strings and nested cells' JSON text.
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

py::object values_of(output::frame_column const& c) {
  switch (c.type) {
    case output::value_type::integer:
    case output::value_type::boolean:
      return numpy_copy(c.integers);
    case output::value_type::real:
      return numpy_copy(c.reals);
    case output::value_type::string:
    case output::value_type::nested:
      break;
  }
  py::list texts(c.texts.size());
  for (std::size_t i = 0; i < c.texts.size(); ++i) texts[i] = python_text(c.texts[i]);
  return py::object(std::move(texts));
}

py::dict column_object(output::frame_column const& c) {
  py::dict d;
  d["name"] = python_text(c.name);
  d["unit"] = python_text(c.unit);
  d["type"] = type_name(c.type);
  d["values"] = values_of(c);
  d["present"] = numpy_copy(c.present);
  return d;
}

}  // namespace

py::str python_text(std::string_view s) {
  auto* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::list frame_objects(std::vector<output::frame> const& frames) {
  py::list out;
  for (auto const& f : frames) {
    py::dict d;
    d["name"] = python_text(f.name);
    d["shape"] = shape_name(f.shape);
    d["rows"] = f.rows;
    py::list columns;
    for (auto const& c : f.columns) columns.append(column_object(c));
    d["columns"] = columns;
    out.append(d);
  }
  return out;
}

}  // namespace tracesweep::python
