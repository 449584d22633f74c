// SPDX-License-Identifier: Apache-2.0
// Text, CSV and JSON output of nsys stats report tables.
#include <tracesweep/stats_report_writer.hpp>

#include <algorithm>

#include "stats/stats_columns.hpp"

namespace tracesweep {

namespace {

using stats::column;
using stats::columns_of;
using stats::format_cell;

std::string csv_field(std::string const& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char const c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char const c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + '"';
}

void write_text(std::vector<stats_table> const& tables, std::ostream& out) {
  bool first = true;
  for (auto const& t : tables) {
    if (!first) out << '\n';
    first = false;
    out << "** " << stats_report_title(t.report) << " (" << to_string(t.report) << "): " << t.source
        << "\n\n";
    if (t.rows.empty()) {
      out << "(no rows: the input has no events of this kind)\n";
      continue;
    }
    auto const cols = columns_of(t.report);
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> width;
    for (auto const& c : cols) width.push_back(c.header.size());
    for (auto const& r : t.rows) {
      auto& line = cells.emplace_back();
      for (std::size_t j = 0; j < cols.size(); ++j) {
        line.push_back(format_cell(r, cols[j], true));
        width[j] = std::max(width[j], line.back().size());
      }
    }
    auto emit = [&](auto const& get) {
      for (std::size_t j = 0; j < cols.size(); ++j) {
        std::string const s = get(j);
        bool const last = j + 1 == cols.size();
        std::string const pad(width[j] - std::min(width[j], s.size()), ' ');
        if (stats::is_numeric(cols[j]))
          out << pad << s;
        else
          out << s << (last ? "" : pad);
        if (!last) out << "  ";
      }
      out << '\n';
    };
    emit([&](std::size_t j) { return std::string(cols[j].header); });
    emit([&](std::size_t j) { return std::string(width[j], '-'); });
    for (auto const& line : cells) emit([&](std::size_t j) { return line[j]; });
  }
}

void write_csv(std::vector<stats_table> const& tables, std::ostream& out) {
  if (tables.empty()) return;
  bool const with_file = tables.size() > 1;
  auto const cols = columns_of(tables.front().report);
  for (std::size_t j = 0; j < cols.size(); ++j) out << (j ? "," : "") << cols[j].header;
  out << (with_file ? ",File\n" : "\n");
  for (auto const& t : tables)
    for (auto const& r : t.rows) {
      for (std::size_t j = 0; j < cols.size(); ++j)
        out << (j ? "," : "") << csv_field(format_cell(r, cols[j], false));
      if (with_file) out << ',' << csv_field(t.source);
      out << '\n';
    }
}

void write_json(std::vector<stats_table> const& tables, std::ostream& out) {
  out << "[";
  for (std::size_t i = 0; i < tables.size(); ++i) {
    auto const& t = tables[i];
    auto const cols = columns_of(t.report);
    out << (i ? ",\n " : "\n ") << "{\"report\": " << json_string(to_string(t.report))
        << ", \"source\": " << json_string(t.source) << ", \"rows\": [";
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      out << (k ? ",\n   {" : "\n   {");
      for (std::size_t j = 0; j < cols.size(); ++j) {
        auto const v = format_cell(t.rows[k], cols[j], false);
        out << (j ? ", " : "") << json_string(cols[j].header) << ": "
            << (stats::is_numeric(cols[j]) ? v : json_string(v));
      }
      out << "}";
    }
    out << (t.rows.empty() ? "]}" : "\n  ]}");
  }
  out << (tables.empty() ? "]\n" : "\n]\n");
}

}  // namespace

void write_stats_tables(std::vector<stats_table> const& tables, output_format format,
                        std::ostream& out) {
  switch (format) {
    case output_format::text:
      write_text(tables, out);
      break;
    case output_format::csv:
      write_csv(tables, out);
      break;
    case output_format::json:
      write_json(tables, out);
      break;
  }
}

}  // namespace tracesweep
