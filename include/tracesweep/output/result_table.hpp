// SPDX-License-Identifier: Apache-2.0
// Typed result tables: what an analysis hands to the output layer. Values stay typed (integers,
// doubles, strings); columns carry the hints each format needs to render them as it always has.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tracesweep::output {

struct result_table;

/// Which outputs show a table or column: text (aligned), flat (CSV: one table, one header),
/// json (nested documents), html (one page of tables and charts). Tables of one result set may be
/// specific to one view.
///
/// The HTML rule: the page shows, in order, the tables whose views include html, and of each the
/// columns whose views include html, in text's order (text_last columns at the end), each cell as
/// text shows it. HTML is the text view on a page: a table or column that narrows its views gives
/// html the text bit's value (text | html, text | flat | html, or neither) unless it means the page
/// to differ from text (a long plot table that is `html` only, say). A nested table (a cell) shows
/// with its cell whatever its own views: a list or map as text shows it, rows as a small table of
/// the columns html shows.
enum view : unsigned { text = 1, flat = 2, json = 4, html = 8, all_views = 15 };

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
  /// A kernel or function name: text may show its short name and elide it to fit the width
  /// (write_options); other formats keep it whole.
  bool symbol = false;
  /// Text may elide it in the middle to fit the width, as symbol columns (file paths).
  bool elide = false;
  /// An instant in ns on the input's clock: text shows it as an offset from
  /// result_set::time_origin_ns when the set has one ("+1.234 567 s").
  bool timestamp = false;
  /// An offset in ns from result_set::time_origin_ns (the analysis subtracted it): text says once
  /// what the origin is, before the first table that shows such a column or a timestamp.
  bool from_time_origin = false;
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

/// How the HTML writer draws a table's chart: none; line (one polyline per series over a
/// numeric x); bars (one bar per x category, series side by side); stacked_bars (series stacked).
enum class chart_kind { none, line, bars, stacked_bars };

/// A chart the HTML writer draws from this table's columns; other writers ignore it. Columns are
/// named by `column::name`; a null x or y leaves the row out of the chart (a null y breaks a
/// line). Series and bar categories appear in the order of their first row; rows repeating a
/// (category, series) of bars add up. A line's x far from zero (timestamps) is drawn from its
/// first value. A hint naming a missing or unsuitable column draws a note instead of the chart.
struct chart {
  chart_kind kind = chart_kind::none;
  /// Column of x: numbers for line (ns → axis in ms/s), labels or numbers for bars.
  std::string x;
  /// Column of the value: numbers ("fraction" is drawn as %, ns in ms/s).
  std::string y;
  /// Column whose distinct values are the series (colours / lines); empty: one series.
  std::string series;
  /// Axis titles without units: the writer appends the unit it draws the axis in ("time" →
  /// "time (ms)"); empty: the column's label or name, less a trailing "(…)".
  std::string x_label, y_label;
  /// Series value (as text shows it) → CSS colour (#hex, rgb()/hsl(), or a named colour; anything
  /// else is ignored); other series take colours from a palette.
  std::vector<std::pair<std::string, std::string>> colors;
  bool chart_only = false;  ///< html: draw the chart, leave the table itself out (long plot data)
};

/// How JSON writes a table: rows (an array of objects), object (its single row as an object),
/// list (the single column's values as an array), map (first column → second, as an object).
/// Lists and maps are written compactly; text and CSV join their entries (see separators).
enum class json_shape { rows, object, list, map };

/// How a timeline writer (perfetto: Chrome-trace JSON for the Perfetto UI) draws a table: each
/// row a span on a track of its process. Columns are named by `column::name`; a row whose start
/// or end is null is not drawn. An empty `start` leaves the table out of the timeline.
struct timeline {
  std::string start;  ///< integer ns on the input's clock
  std::string end;    ///< integer ns; or empty and `duration` (ns) names the length
  std::string duration;
  std::string process;   ///< integer column: the span's process (its rank)
  std::string thread;    ///< integer column splitting the process's tracks (device); may be empty
  std::string track;     ///< the track's name, "{}" replaced by the thread column's value
  std::string label;     ///< string column naming each span; empty: `name`
  std::string name;      ///< the spans' name when `label` is empty
  std::string category;  ///< the spans' Chrome-trace category
  std::string colour;    ///< column whose distinct values pick the spans' colours; may be empty
  std::string required;  ///< a column whose null cell leaves the row out; may be empty
};

/// A named table of typed columns and rows, with how text and JSON lay it out.
struct result_table {
  /// What --table selects the table by, and its JSON key: a name users see. Tables of disjoint
  /// views may share one (the text view of a JSON table).
  std::string name;
  std::string title;  ///< text heading
  std::vector<column> columns;
  std::vector<row> rows;
  unsigned views = all_views;
  json_shape shape = json_shape::rows;
  text_style style = text_style::listing;
  std::string text_empty;  ///< text printed instead of the header when there are no rows
  /// Text: the rows that make one entry of what the title names (a finding over three lines); the
  /// count after a listing's title counts entries.
  std::size_t rows_per_entry = 1;
  // Lists and maps inside a cell: entry separator and key-value separator in text (CSV uses
  // ";" and "="), and folding of consecutive integer keys with equal values into "a-b".
  std::string text_separator = ", ";
  std::string text_pair = "=";
  bool text_fold_ranges = false;
  chart plot;      ///< html: the chart drawn above the table (kind none: no chart)
  timeline spans;  ///< perfetto: how the rows are drawn (start empty: not drawn)

  /// Appends a column and returns it for further hints.
  column& add(std::string name, value_type type, std::string unit = {}, std::string label = {}) {
    auto& c = columns.emplace_back();
    c.name = std::move(name);
    c.type = type;
    c.unit = std::move(unit);
    c.label = std::move(label);
    return c;
  }
  /// Rows made one at a time as a writer reaches them, for a list too long to hold as cells at
  /// once (diagnose --top 0: every gap): row i is generate(i) for i < generated_rows, and exists
  /// only while it is written. `rows` stays empty then. Read rows with row_count / for_each_row.
  std::function<row(std::size_t)> generate;
  std::size_t generated_rows = 0;

  /// Appends a row of cells in column order.
  void add_row(std::vector<cell> cells) { rows.push_back(row{std::move(cells)}); }
};

/// The table's rows: stored or generated.
[[nodiscard]] inline std::size_t row_count(result_table const& t) {
  return t.generate ? t.generated_rows : t.rows.size();
}
/// Calls f(row const&) for every row in order, generating one at a time when the table does.
template <class F>
void for_each_row(result_table const& t, F&& f) {
  if (!t.generate) {
    for (auto const& r : t.rows) f(r);
    return;
  }
  for (std::size_t i = 0; i < t.generated_rows; ++i) {
    row const r = t.generate(i);
    f(r);
  }
}

/// What an analysis hands to the output layer: tables in output order.
struct result_set {
  std::vector<result_table> tables;
  /// JSON: the document is the single JSON table's value rather than an object of tables.
  bool json_bare = false;
  /// The trace's start: text shows timestamp columns from it and prints it once.
  std::optional<std::int64_t> time_origin_ns;
  /// What time_origin_ns is, as the text names it.
  std::string time_origin_name = "the trace start";
  /// Why a table is empty or partial: one warning line each, which the command line writes on
  /// standard error (never into the output).
  std::vector<std::string> notes;
};

/// Wraps a table into a nested cell.
[[nodiscard]] inline cell nest(result_table t) {
  return std::make_shared<result_table const>(std::move(t));
}

}  // namespace tracesweep::output
