// SPDX-License-Identifier: Apache-2.0
// CSV as the tests read it back.
#pragma once

#include <string>
#include <vector>

namespace tracesweep::test {

/// RFC 4180 CSV into rows of fields.
inline std::vector<std::vector<std::string>> parse_csv(std::string const& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char const c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true, any = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear(), any = true;
    } else if (c == '\n') {
      row.push_back(std::move(field)), field.clear();
      rows.push_back(std::move(row)), row.clear();
      any = false;
    } else if (c != '\r') {
      field += c, any = true;
    }
  }
  if (any) row.push_back(std::move(field)), rows.push_back(std::move(row));
  return rows;
}

}  // namespace tracesweep::test
