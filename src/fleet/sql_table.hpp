// SPDX-License-Identifier: Apache-2.0
// A result table filled by a SQL query over the results store: one column spec per result
// column, in the query's column order; NULL becomes a null cell.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <tracesweep/output/result_table.hpp>

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

struct sql_column {
  std::string name;
  output::value_type type = output::value_type::integer;
  std::string unit;   ///< "ns", "fraction", "bytes", …
  std::string label;  ///< text header
  std::string text_unit;
  int decimals = -1;
  unsigned views = output::all_views;
};

using sql_value = std::variant<std::int64_t, std::string>;

[[nodiscard]] output::result_table query_table(sqlite_handle const& db, std::string name,
                                               std::string title,
                                               std::vector<sql_column> const& columns,
                                               std::string const& sql,
                                               std::vector<sql_value> const& binds);

}  // namespace tracesweep::fleet
