// SPDX-License-Identifier: Apache-2.0
// What the Python module hands to Python: numpy arrays built from the columns in C++ loops, never
// a Python object per row (strings aside: the interned names once each, a string column's cells).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <tracesweep/event_table.hpp>
#include <tracesweep/output/frames.hpp>

namespace tracesweep::python {

/// The event columns Trace.events() can return, in their order.
[[nodiscard]] std::vector<std::string> const& event_column_names();

/// The rows of `table` whose kind is in `kinds` (all when empty), as a dict of numpy arrays by
/// column name (`columns`: those, in that order; all when empty); "kind", "name" and "category"
/// are codes, with their categories under "kind_categories", "name_categories" and
/// "category_categories". Unknown names throw std::invalid_argument.
[[nodiscard]] pybind11::dict event_arrays(event_table const& table,
                                          std::vector<std::string> const& kinds,
                                          std::vector<std::string> const& columns);

/// The memory events of `table` as a dict of numpy arrays.
[[nodiscard]] pybind11::dict memory_arrays(event_table const& table);

/// Result tables as a list of dicts: name, shape, rows, columns (name, unit, type, values: a
/// numpy array, or a list of str and None (null) for string and nested (JSON text) columns;
/// tables: in a nested column carrying frames, each row's frame as such a dict or None; present:
/// a uint8 array). The numpy arrays take the frames' vectors over.
[[nodiscard]] pybind11::list frame_objects(std::vector<output::frame> frames);

/// A numpy array holding a copy of `v`.
template <class T>
pybind11::array_t<T> numpy_copy(std::vector<T> const& v) {
  pybind11::array_t<T> a(static_cast<pybind11::ssize_t>(v.size()));
  if (!v.empty()) std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// A numpy array that takes `v` over (no copy): the array owns the vector until it is freed.
template <class T>
pybind11::array_t<T> numpy_take(std::vector<T>&& v) {
  auto* held = new std::vector<T>(std::move(v));
  pybind11::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return pybind11::array_t<T>(static_cast<pybind11::ssize_t>(held->size()), held->data(), owner);
}

/// `s` as a Python str; bytes that are not UTF-8 become U+FFFD.
[[nodiscard]] pybind11::str python_text(std::string_view s);

}  // namespace tracesweep::python
