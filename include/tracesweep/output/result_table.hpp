// SPDX-License-Identifier: Apache-2.0
// Typed result tables: what an analysis hands to the output layer. Values stay typed (integers,
// doubles, strings); columns carry the hints each format needs to render them as it always has.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tracesweep::output {

struct result_table;

/// Which outputs show a table or column: text (aligned), flat (CSV: one table, one header),
/// json (nested documents). Tables of one result set may be specific to one view.
enum view : unsigned { text = 1, flat = 2, json = 4, all_views = 7 };

/// A column's value type; `nested` cells hold a whole table (a list, a map or nested rows).
enum class value_type { integer, real, string, boolean, nested };

/// One cell: null (std::monostate), a typed scalar, or nested rows.
using cell = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                          std::shared_ptr<result_table const>>;

/// Text alignment: automatic puts numbers right and strings left.
enum class align { automatic, left, right };

/// A named, typed column with its unit and its presentation hints.
struct column {
  std::string name;  ///< JSON key and CSV header
  value_type type = value_type::integer;
  std::string unit;        ///< "ns", "bytes", "MB", "%", "fraction" (a ratio) or "" (none)
  std::string label;       ///< text header; empty: the name
  std::string text_unit;   ///< text converts to this unit: ns → "ms" / "us", fraction → "%"
  int decimals = -1;       ///< text: fixed decimals (0 rounds half to even); -1: as stored
  bool fixed = false;      ///< `decimals` in every format (values published rounded, as nsys)
  bool thousands = false;  ///< text: "," between groups of three integer digits
  align text_align = align::automatic;
  bool text_last = false;       ///< text moves the column to the end
  unsigned views = all_views;   ///< where the column appears
  std::string flat_null;        ///< CSV text of a null cell (text shows "-", JSON null)
  bool json_omit_null = false;  ///< JSON leaves a null cell's key out
};

/// One row: one cell per column, in column order.
struct row {
  std::vector<cell> cells;
};

/// How the text writer lays a table out (one style per command, as each always printed):
/// listing: "Title (N)", every column indented by two spaces (summary);
/// report: "** Title", a blank line, dashes under each header (nsys stats);
/// grid: title and header framed by full-width dashes, a blank line after (Paddle, TensorBoard).
enum class text_style { listing, report, grid };

/// How JSON writes a table: rows (an array of objects), object (its single row as an object),
/// list (the single column's values as an array), map (first column → second, as an object).
/// Lists and maps are written compactly; text and CSV join their entries (see separators).
enum class json_shape { rows, object, list, map };

/// A named table of typed columns and rows, with how text and JSON lay it out.
struct result_table {
  std::string name;   ///< selects the table and is its JSON key
  std::string title;  ///< text heading
  std::vector<column> columns;
  std::vector<row> rows;
  unsigned views = all_views;
  json_shape shape = json_shape::rows;
  text_style style = text_style::listing;
  std::string text_empty;  ///< text printed instead of the header when there are no rows
  // Lists and maps inside a cell: entry separator and key-value separator in text (CSV uses
  // ";" and "="), and folding of consecutive integer keys with equal values into "a-b".
  std::string text_separator = ", ";
  std::string text_pair = "=";
  bool text_fold_ranges = false;

  /// Appends a column and returns it for further hints.
  column& add(std::string name, value_type type, std::string unit = {}, std::string label = {}) {
    auto& c = columns.emplace_back();
    c.name = std::move(name);
    c.type = type;
    c.unit = std::move(unit);
    c.label = std::move(label);
    return c;
  }
  /// Appends a row of cells in column order.
  void add_row(std::vector<cell> cells) { rows.push_back(row{std::move(cells)}); }
};

/// What an analysis hands to the output layer: tables in output order.
struct result_set {
  std::vector<result_table> tables;
  /// JSON: the document is the single JSON table's value rather than an object of tables.
  bool json_bare = false;
};

/// Wraps a table into a nested cell.
[[nodiscard]] inline cell nest(result_table t) {
  return std::make_shared<result_table const>(std::move(t));
}

}  // namespace tracesweep::output
