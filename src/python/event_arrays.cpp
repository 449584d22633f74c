// SPDX-License-Identifier: Apache-2.0
// Trace.events() and Trace.memory_events(): the event table's columns as numpy arrays.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "python/python_arrays.hpp"

namespace py = pybind11;

namespace tracesweep::python {

namespace {

constexpr std::uint32_t all_kinds = (std::uint32_t{1} << event_kind_count) - 1;

std::uint32_t kind_mask(std::vector<std::string> const& kinds) {
  if (kinds.empty()) return ~std::uint32_t{0};
  std::uint32_t mask = 0;
  for (auto const& k : kinds) {
    int found = -1;
    for (int i = 0; i < event_kind_count; ++i)
      if (to_string(static_cast<event_kind>(i)) == k) found = i;
    if (found < 0) throw std::invalid_argument("kinds: unknown event kind '" + k + "'");
    mask |= std::uint32_t{1} << found;
  }
  return mask;
}

/// The rows a call returns: every row, or those listed (ascending).
struct row_selection {
  bool every = true;
  std::size_t count = 0;
  std::vector<std::size_t> listed;
  [[nodiscard]] std::size_t size() const noexcept { return every ? count : listed.size(); }
  [[nodiscard]] std::size_t operator[](std::size_t i) const noexcept {
    return every ? i : listed[i];
  }
};

/// The rows of `t` whose kind is in `mask`.
row_selection rows_of(event_table const& t, std::uint32_t mask) {
  row_selection rows;
  rows.count = t.size();
  if ((mask & all_kinds) == all_kinds) return rows;
  rows.every = false;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (mask >> static_cast<unsigned>(t.kind[r]) & 1U) rows.listed.push_back(r);
  return rows;
}

/// A numpy array of value(row) for each row.
template <class T, class Value>
py::array_t<T> column_of(row_selection const& rows, Value value) {
  py::array_t<T> a(static_cast<py::ssize_t>(rows.size()));
  auto* out = a.mutable_data();
  py::gil_scoped_release unlocked;
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<T>(value(rows[i]));
  return a;
}

/// value(row) for each row as int32 when every value fits, else int64: ids and counts that are
/// small in practice take half the memory.
template <class Value>
py::array narrow_column_of(row_selection const& rows, Value value) {
  std::int64_t low = 0, high = 0;
  {
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::int64_t const v = value(rows[i]);
      low = std::min(low, v), high = std::max(high, v);
    }
  }
  if (low >= std::numeric_limits<std::int32_t>::min() &&
      high <= std::numeric_limits<std::int32_t>::max())
    return column_of<std::int32_t>(rows, value);
  return column_of<std::int64_t>(rows, value);
}

py::list pool_strings(string_pool const& pool) {
  py::list out(pool.size());
  for (std::size_t i = 0; i < pool.size(); ++i)
    out[i] = python_text(pool.at(static_cast<string_id>(i)));
  return out;
}

py::list kind_names() {
  py::list out;
  for (int i = 0; i < event_kind_count; ++i)
    out.append(python_text(to_string(static_cast<event_kind>(i))));
  return out;
}

/// Input of each row: an input's rows are contiguous.
std::vector<std::int32_t> input_column(event_table const& t) {
  std::vector<std::int32_t> input(t.size(), 0);
  for (std::size_t k = 0; k < t.inputs().size(); ++k) {
    auto const [first, end] = t.input_rows(k);
    std::fill(input.begin() + static_cast<std::ptrdiff_t>(first),
              input.begin() + static_cast<std::ptrdiff_t>(end), static_cast<std::int32_t>(k));
  }
  return input;
}

bool host_row(event_table const& t, std::size_t r) noexcept {
  return t.device[r] < 0;
}

/// A column events() can return: its name, whether it is returned when no columns are asked for,
/// and what adds it (and its categories) to the output.
struct event_column {
  char const* name;
  bool by_default;
  void (*add)(py::dict& out, event_table const& t, row_selection const& rows);
};

// clang-format off
constexpr event_column known_columns[] = {
  {"start_ns", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["start_ns"] = column_of<std::int64_t>(rows, [&](auto r) { return t.start_ns[r]; });
   }},
  {"end_ns", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["end_ns"] = column_of<std::int64_t>(rows, [&](auto r) { return t.end_ns[r]; });
   }},
  {"kind", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["kind"] = column_of<std::int8_t>(rows, [&](auto r) { return t.kind[r]; });
     out["kind_categories"] = kind_names();
   }},
  {"name", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["name"] = column_of<std::int32_t>(rows, [&](auto r) { return t.name[r]; });
     out["name_categories"] = pool_strings(t.strings());
   }},
  {"category", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["category"] = column_of<std::int32_t>(rows, [&](auto r) { return t.category[r]; });
     out["category_categories"] = pool_strings(t.strings());
   }},
  {"rank", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["rank"] = column_of<std::int32_t>(rows, [&](auto r) { return t.rank[r]; });
   }},
  {"device", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["device"] = column_of<std::int32_t>(rows, [&](auto r) { return t.device[r]; });
   }},
  {"stream", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["stream"] = narrow_column_of(
         rows, [&](auto r) { return host_row(t, r) ? std::int64_t{-1} : t.stream[r]; });
   }},
  {"thread", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["thread"] = narrow_column_of(
         rows, [&](auto r) { return host_row(t, r) ? t.stream[r] : std::int64_t{-1}; });
   }},
  {"correlation", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["correlation"] = narrow_column_of(rows, [&](auto r) { return t.correlation_of(r); });
   }},
  {"bytes", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["bytes"] = narrow_column_of(rows, [&](auto r) { return t.bytes_of(r); });
   }},
  {"input", true, [](py::dict& out, event_table const& t, row_selection const& rows) {
     auto const input = input_column(t);
     out["input"] = column_of<std::int32_t>(rows, [&](auto r) { return input[r]; });
   }},
  // On request: the "stream" arg of a host row that carries one, else -1.
  {"host_stream", false, [](py::dict& out, event_table const& t, row_selection const& rows) {
     out["host_stream"] = narrow_column_of(rows, [&](auto r) -> std::int64_t {
       auto const* s = t.host_streams.find(r);
       return s ? *s : -1;
     });
   }},
};
// clang-format on

event_column const& known_column(std::string const& name) {
  for (auto const& c : known_columns)
    if (name == c.name) return c;
  throw std::invalid_argument("columns: unknown column '" + name + "'");
}

}  // namespace

std::vector<std::string> const& event_column_names() {
  static std::vector<std::string> const names = [] {
    std::vector<std::string> out;
    for (auto const& c : known_columns)
      if (c.by_default) out.emplace_back(c.name);
    return out;
  }();
  return names;
}

py::dict event_arrays(event_table const& t, std::vector<std::string> const& kinds,
                      std::vector<std::string> const& columns) {
  auto const mask = kind_mask(kinds);
  auto const& names = columns.empty() ? event_column_names() : columns;
  std::vector<event_column const*> wanted;
  for (auto const& n : names) wanted.push_back(&known_column(n));
  row_selection rows;
  {
    py::gil_scoped_release unlocked;
    rows = rows_of(t, mask);
  }
  py::dict out;
  for (auto const* c : wanted) c->add(out, t, rows);
  return out;
}

py::dict memory_arrays(event_table const& t) {
  auto const& m = t.memory;
  py::dict out;
  out["time_ns"] = numpy_copy(m.time_ns);
  out["input"] = numpy_copy(m.input);
  out["rank"] = numpy_copy(m.rank);
  out["device"] = numpy_copy(m.device);
  out["thread"] = numpy_copy(m.thread);
  out["bytes"] = numpy_copy(m.bytes);
  std::vector<std::int8_t> pool(m.pool.size());
  std::transform(m.pool.begin(), m.pool.end(), pool.begin(),
                 [](memory_pool p) { return static_cast<std::int8_t>(p); });
  out["pool"] = numpy_copy(pool);
  out["allocated"] = numpy_copy(m.allocated);
  out["reserved"] = numpy_copy(m.reserved);
  return out;
}

}  // namespace tracesweep::python
