// SPDX-License-Identifier: Apache-2.0
// The column helpers every job table's result tables are built with: framed grids with a rank
// column, JSON-only trees, times in ns shown in ms or µs, ratios shown as percentages, values
// text shows differently from CSV.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::tables::result_columns {

using output::cell, output::column, output::nest, output::result_table, output::value_type;
using enum output::value_type;
// Text's tables and columns are also the HTML page's (see output::view).
constexpr unsigned text_views = output::text | output::html;
constexpr unsigned flat_only = output::flat;
constexpr unsigned text_and_flat = output::text | output::flat | output::html;

/// An integer cell (from any integer width).
inline cell i64(std::int64_t v) {
  return v;
}

/// µs rounded half to even, the TensorBoard plugin's integer µs.
inline std::int64_t us_round(double ns) {
  return static_cast<std::int64_t>(std::nearbyint(ns / 1000.0));
}
/// Python's round(x, 2): the double nearest to x printed with 2 decimals.
inline double round2(double x) {
  return std::stod(fmt::format("{:.2f}", x));
}

inline result_table grid(std::string name, std::string title, unsigned views = text_and_flat) {
  result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.views = views;
  t.style = output::text_style::grid;
  return t;
}

/// A grid whose first column is the rank.
inline result_table ranked(std::string name, std::string title, unsigned views = text_and_flat) {
  auto t = grid(std::move(name), std::move(title), views);
  t.add("rank", integer, {}, "Rank");
  return t;
}

/// A JSON-only table (rows or a single object).
inline result_table tree(std::string name, output::json_shape shape = output::json_shape::rows) {
  result_table t;
  t.name = std::move(name);
  t.views = output::json;
  t.shape = shape;
  return t;
}

/// A time in ns, shown in text as ms (3 decimals) or µs (integer).
inline column& add_time(result_table& t, std::string name, value_type type, std::string label,
                        std::string text_unit = "ms") {
  auto& c = t.add(std::move(name), type, "ns", std::move(label));
  c.text_unit = std::move(text_unit);
  c.decimals = c.text_unit == "ms" ? 3 : 0;
  return c;
}

/// A ratio, shown in text as a percentage with 2 decimals.
inline column& add_ratio(result_table& t, std::string name, std::string label) {
  auto& c = t.add(std::move(name), real, "fraction", std::move(label));
  c.text_unit = std::string(1, '%');  // (GCC 12 warns falsely on = "%" here)
  c.decimals = 2;
  return c;
}

inline column& add_in(result_table& t, unsigned views, std::string name, value_type type,
                      std::string label = {}) {
  auto& c = t.add(std::move(name), type, {}, std::move(label));
  c.views = views;
  return c;
}

/// A value text shows differently from CSV: a text (and HTML) string column `label` followed by the
/// CSV-only column `name`; rows give both cells.
inline void add_text_and_flat(result_table& t, std::string name, value_type flat_type,
                              std::string label) {
  add_in(t, text_views, name + "_text", string, std::move(label)).text_align =
      flat_type == string ? output::align::left : output::align::right;
  add_in(t, flat_only, std::move(name), flat_type).unit = flat_type == string ? "" : "ns";
}

inline std::string ms(std::int64_t ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6);
}

inline void add_all(result_table& t, value_type type, std::initializer_list<char const*> names) {
  for (auto const* n : names) t.add(n, type);
}

}  // namespace tracesweep::tables::result_columns
