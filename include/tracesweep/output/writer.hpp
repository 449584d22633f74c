// SPDX-License-Identifier: Apache-2.0
// One writer per output format, found by name in a registry. A new format is one writer file in
// src/output defining its write function, and its declaration and entry in the registry
// (src/output/writer.cpp).
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/output/result_table.hpp>

namespace tracesweep::output {

/// How text lays tables out for a person, and whether CSV guards against spreadsheet formulas;
/// the other formats ignore it.
struct write_options {
  /// Lines fit in this many columns where eliding symbol columns (kernel names, "ab...yz") can
  /// make them; 0 = no limit, nothing elided.
  std::size_t width = 0;
  bool short_names = false;  ///< symbol columns show short names (short_symbol_name)
  /// CSV: a field that starts with =, +, - or @ and is not a number is prefixed with ' (a
  /// spreadsheet would run it as a formula).
  bool csv_safe = false;
  /// Text and HTML: the unit of every time column ("ns", "us", "ms" or "s"; --time-unit). Empty:
  /// each table's own (ms where a table names none, as nsys's reports print ns), offsets in ms.
  /// JSON and CSV always carry integer ns.
  std::string time_unit;
};

/// Writes `results` to `out`. `table` non-empty: only that table (a format that writes one table
/// writes that one, else its first). A name no table of this format has throws
/// unknown_table_error.
using write_function = void (*)(result_set const& results, std::string_view table,
                                std::ostream& out, write_options const& options);

/// A kernel's or function's short name, as nsys's shortName: without return type, template
/// arguments, parameters and namespaces ("void ns::k<4>(int)" → "k"); the name itself when
/// nothing of it would be left.
[[nodiscard]] std::string short_symbol_name(std::string_view name);

/// The short names of `names` (one per name, in order), kept apart: equal names get equal short
/// names; different names that shorten to the same text show their template arguments as well
/// ("Kernel<cutlass_80_..._nn_align4>") where those tell them apart, else a number after the
/// short name ("elementwise_kernel #2", numbered in the order of the full names).
[[nodiscard]] std::vector<std::string> distinct_short_names(std::span<std::string const> names);

struct writer_entry {
  std::string_view name;  ///< the format's name, as --format takes it
  write_function write;
};

/// Every registered format, in registration order.
[[nodiscard]] std::span<writer_entry const> writers() noexcept;

/// The writer of `format`, or nullptr when no format has that name.
[[nodiscard]] write_function find_writer(std::string_view format) noexcept;

/// The tables of `results` that `v` shows; only `table` when non-empty (unknown_table_error when
/// none of them has that name).
[[nodiscard]] std::vector<result_table const*> tables_for(result_set const& results, view v,
                                                          std::string_view table);

}  // namespace tracesweep::output
