// SPDX-License-Identifier: Apache-2.0
#include "fleet/sql_table.hpp"

namespace tracesweep::fleet {

output::result_table query_table(sqlite_handle const& db, std::string name, std::string title,
                                 std::vector<sql_column> const& columns, std::string const& sql,
                                 std::vector<sql_value> const& binds) {
  output::result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  for (auto const& c : columns) {
    auto& col = t.add(c.name, c.type, c.unit, c.label);
    col.text_unit = c.text_unit;
    col.decimals = c.decimals;
    col.views = c.views;
  }
  sql_statement q(db, sql);
  for (std::size_t i = 0; i < binds.size(); ++i) {
    int const at = static_cast<int>(i + 1);
    if (auto const* v = std::get_if<std::int64_t>(&binds[i]))
      q.bind(at, *v);
    else
      q.bind(at, std::get<std::string>(binds[i]));
  }
  while (q.step()) {
    std::vector<output::cell> cells;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      int const at = static_cast<int>(i);
      if (q.is_null(at)) {
        cells.emplace_back();
        continue;
      }
      switch (columns[i].type) {
        case output::value_type::integer:
          cells.emplace_back(q.integer(at));
          break;
        case output::value_type::real:
          cells.emplace_back(q.real(at));
          break;
        case output::value_type::boolean:
          cells.emplace_back(q.integer(at) != 0);
          break;
        default:
          cells.emplace_back(q.text(at));
      }
    }
    t.add_row(std::move(cells));
  }
  return t;
}

}  // namespace tracesweep::fleet
