// SPDX-License-Identifier: Apache-2.0
// Summary report writers. Each table is first laid out as columns of cells that carry their
// JSON, CSV and text renderings; the three writers only arrange cells.
#include <tracesweep/error.hpp>
#include <tracesweep/summary_report.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace tracesweep {

namespace {

/// JSON string literal of `s`; bytes that are not valid UTF-8 become U+FFFD.
std::string json_string(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  o += '"';
  auto const* p = reinterpret_cast<unsigned char const*>(s.data());
  std::size_t const n = s.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char const c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"':
          o += "\\\"";
          break;
        case '\\':
          o += "\\\\";
          break;
        case '\n':
          o += "\\n";
          break;
        case '\r':
          o += "\\r";
          break;
        case '\t':
          o += "\\t";
          break;
        case '\b':
          o += "\\b";
          break;
        case '\f':
          o += "\\f";
          break;
        default:
          if (c < 0x20)
            o += fmt::format("\\u{:04x}", c);
          else
            o += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // Validate one UTF-8 sequence (no overlongs, no surrogates, ≤ U+10FFFF).
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF)
      len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
      len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
      len = 4, cp = c & 0x07;
    bool ok = len != 0 && i + len <= n;
    for (std::size_t j = 1; ok && j < len; ++j) {
      if ((p[i + j] & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + j] & 0x3F);
    }
    if (ok) {
      if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
          (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        ok = false;
    }
    if (!ok) {
      o += "\\ufffd";
      ++i;
      continue;
    }
    o.append(s.substr(i, len));
    i += len;
  }
  o += '"';
  return o;
}

/// Shortest representation that reads back as the same double, always with a fraction or
/// exponent so JSON readers keep it a floating value.
std::string real_repr(double v) {
  if (!std::isfinite(v)) return "null";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

/// RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  o += '"';
  return o;
}

struct cell {
  std::string json;
  std::string csv;
  std::string text;
};

cell integer(std::int64_t v) {
  auto s = std::to_string(v);
  return {s, s, s};
}
cell real(double v, std::string text) {
  auto s = real_repr(v);
  return {s, s, std::move(text)};
}
cell str(std::string_view v) {
  return {json_string(v), csv_field(v), std::string(v)};
}
cell percent(double fraction) {
  return real(fraction, fmt::format("{:.2f}", fraction * 100.0));
}
cell mean_ns(double v) {
  return real(v, fmt::format("{:.1f}", v));
}

struct column {
  std::string key;     ///< JSON key and CSV header
  std::string header;  ///< text header, with the unit
  bool left = false;   ///< left-aligned in text (strings)
  bool in_text = true;
  bool lead = false;  ///< first in JSON and CSV (the text puts long names last instead)
  std::vector<cell> cells;
};

struct table_layout {
  std::string name;
  std::string title;
  std::deque<column> columns;  ///< deque: references from add() stay valid
  std::size_t rows = 0;
};

column& add(table_layout& t, std::string key, std::string header, bool left = false,
            bool in_text = true) {
  t.columns.push_back(column{std::move(key), std::move(header), left, in_text, false, {}});
  return t.columns.back();
}

std::string const& input_path(summary const& s, std::int32_t input) {
  static std::string const none;
  return input >= 0 && static_cast<std::size_t>(input) < s.inputs.size() ? s.inputs[input].path
                                                                         : none;
}

table_layout devices_table(summary const& s) {
  table_layout t{"devices", "Devices", {}, s.devices.size()};
  bool const several_inputs = s.inputs.size() > 1;
  auto& input = add(t, "input", "input", false, several_inputs);
  auto& path = add(t, "path", "path", true, false);
  auto& rank = add(t, "rank", "rank");
  auto& device = add(t, "device", "device");
  auto& ws = add(t, "window_start_ns", "start (ns)", false, false);
  auto& we = add(t, "window_end_ns", "end (ns)", false, false);
  auto& window = add(t, "window_ns", "window (ns)");
  auto& busy = add(t, "busy_ns", "busy (ns)");
  auto& idle = add(t, "idle_ns", "idle (ns)");
  auto& util = add(t, "utilization", "util (%)");
  auto& kernel = add(t, "kernel_ns", "kernel (ns)");
  auto& memcpy = add(t, "memcpy_ns", "memcpy (ns)");
  auto& memset = add(t, "memset_ns", "memset (ns)");
  auto& comm = add(t, "communication_ns", "comm (ns)");
  auto& comp = add(t, "computation_ns", "compute (ns)");
  auto& overlap = add(t, "overlap_ns", "overlap (ns)");
  auto& count = add(t, "kernel_count", "kernels");
  for (auto const& d : s.devices) {
    input.cells.push_back(integer(d.input));
    path.cells.push_back(str(input_path(s, d.input)));
    rank.cells.push_back(integer(d.rank));
    device.cells.push_back(integer(d.device));
    ws.cells.push_back(integer(d.window_start_ns));
    we.cells.push_back(integer(d.window_end_ns));
    window.cells.push_back(integer(d.window_ns));
    busy.cells.push_back(integer(d.busy_ns));
    idle.cells.push_back(integer(d.idle_ns));
    util.cells.push_back(percent(d.utilization));
    kernel.cells.push_back(integer(d.kernel_ns));
    memcpy.cells.push_back(integer(d.memcpy_ns));
    memset.cells.push_back(integer(d.memset_ns));
    comm.cells.push_back(integer(d.communication_ns));
    comp.cells.push_back(integer(d.computation_ns));
    overlap.cells.push_back(integer(d.overlap_ns));
    count.cells.push_back(integer(d.kernel_count));
  }
  return t;
}

table_layout kernels_table(summary const& s) {
  table_layout t{"kernels", "Kernels", {}, s.kernels.size()};
  auto& calls = add(t, "calls", "calls");
  auto& total = add(t, "total_ns", "total (ns)");
  auto& avg = add(t, "avg_ns", "avg (ns)");
  auto& median = add(t, "median_ns", "median (ns)");
  auto& min = add(t, "min_ns", "min (ns)");
  auto& max = add(t, "max_ns", "max (ns)");
  auto& stddev = add(t, "stddev_ns", "stddev (ns)");
  auto& share = add(t, "share", "share (%)");
  auto& name = add(t, "name", "name", true);
  for (auto const& k : s.kernels) {
    calls.cells.push_back(integer(k.calls));
    total.cells.push_back(integer(k.total_ns));
    share.cells.push_back(percent(k.share));
    avg.cells.push_back(mean_ns(k.avg_ns));
    median.cells.push_back(mean_ns(k.median_ns));
    min.cells.push_back(integer(k.min_ns));
    max.cells.push_back(integer(k.max_ns));
    stddev.cells.push_back(mean_ns(k.stddev_ns));
    name.cells.push_back(str(k.name));
  }
  name.lead = true;
  return t;
}

table_layout gaps_table(summary const& s) {
  table_layout t{"gaps", "Idle gaps", {}, s.gaps.size()};
  bool const several_inputs = s.inputs.size() > 1;
  auto& input = add(t, "input", "input", false, several_inputs);
  auto& path = add(t, "path", "path", true, false);
  auto& rank = add(t, "rank", "rank");
  auto& device = add(t, "device", "device");
  auto& start = add(t, "start_ns", "start (ns)");
  auto& end = add(t, "end_ns", "end (ns)");
  auto& duration = add(t, "duration_ns", "duration (ns)");
  for (auto const& g : s.gaps) {
    input.cells.push_back(integer(g.input));
    path.cells.push_back(str(input_path(s, g.input)));
    rank.cells.push_back(integer(g.rank));
    device.cells.push_back(integer(g.device));
    start.cells.push_back(integer(g.start_ns));
    end.cells.push_back(integer(g.end_ns));
    duration.cells.push_back(integer(g.duration_ns));
  }
  return t;
}

/// JSON {"id": "name", …}; CSV `id=name;…`; text `id=name, …` with consecutive ids of one name
/// folded into a range (`0-7=NVIDIA H100 80GB HBM3`) to stay short on many-GPU nodes.
cell device_names_cell(std::map<std::int32_t, std::string> const& names) {
  cell c{"{", "", ""};
  bool first = true;
  for (auto const& [id, name] : names) {
    auto const key = std::to_string(id);
    c.json += first ? "\"" : ",\"";
    c.json += key;
    c.json += "\":";
    c.json += json_string(name);
    c.csv += first ? "" : ";";
    c.csv += key;
    c.csv += '=';
    c.csv += name;
    first = false;
  }
  c.json += "}";
  c.csv = csv_field(c.csv);
  for (auto it = names.begin(); it != names.end();) {
    auto last = it;
    for (auto next = std::next(it);
         next != names.end() && next->first == last->first + 1 && next->second == it->second;
         ++next)
      last = next;
    if (!c.text.empty()) c.text += ", ";
    c.text += std::to_string(it->first);
    if (last != it) {
      c.text += '-';
      c.text += std::to_string(last->first);
    }
    c.text += '=';
    c.text += it->second;
    it = std::next(last);
  }
  if (c.text.empty()) c.text = "-";
  return c;
}

table_layout inputs_table(summary const& s) {
  table_layout t{"inputs", "Inputs", {}, s.inputs.size()};
  auto& path = add(t, "path", "path", true);
  auto& format = add(t, "format", "format", true);
  auto& ranks = add(t, "ranks", "ranks", true);
  auto& events = add(t, "events", "events");
  auto& skipped = add(t, "skipped", "skipped", true);
  auto& start = add(t, "session_start_utc_ns", "session start (ns)", false, false);
  auto& devices = add(t, "device_names", "devices", true);
  for (auto const& in : s.inputs) {
    path.cells.push_back(str(in.path));
    format.cells.push_back(str(in.format));
    cell r{"[", "", ""};
    for (std::size_t i = 0; i < in.ranks.size(); ++i) {
      auto const v = std::to_string(in.ranks[i]);
      r.json += (i ? "," : "") + v;
      r.csv += (i ? ";" : "") + v;
      r.text += (i ? "," : "") + v;
    }
    r.json += "]";
    ranks.cells.push_back(std::move(r));
    events.cells.push_back(integer(in.events));
    cell k{"{", "", ""};
    bool first = true;
    for (auto const& [reason, count] : in.skipped) {
      k.json += (first ? "" : ",") + json_string(reason) + ":" + std::to_string(count);
      k.csv += (first ? "" : ";") + reason + "=" + std::to_string(count);
      k.text += (first ? "" : ", ") + reason + ": " + std::to_string(count);
      first = false;
    }
    k.json += "}";
    k.csv = csv_field(k.csv);
    if (k.text.empty()) k.text = "-";
    skipped.cells.push_back(std::move(k));
    start.cells.push_back(in.session_start_utc_ns ? integer(*in.session_start_utc_ns)
                                                  : cell{"null", "", "-"});
    devices.cells.push_back(device_names_cell(in.device_names));
  }
  return t;
}

table_layout layout(summary const& s, std::string_view name) {
  if (name == "devices") return devices_table(s);
  if (name == "kernels") return kernels_table(s);
  if (name == "gaps") return gaps_table(s);
  return inputs_table(s);
}

void write_text(table_layout const& t, std::ostream& out) {
  out << t.title << " (" << t.rows << ")\n";
  if (t.rows == 0) {
    out << "  (none)\n";
    return;
  }
  std::vector<column const*> cols;
  for (auto const& c : t.columns)
    if (c.in_text) cols.push_back(&c);
  std::vector<std::size_t> width(cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j) {
    width[j] = cols[j]->header.size();
    for (auto const& c : cols[j]->cells) width[j] = std::max(width[j], c.text.size());
  }
  auto emit = [&](std::size_t j, std::string const& v, bool left) {
    bool const last = j + 1 == cols.size();
    std::string const pad(width[j] - v.size(), ' ');
    out << "  ";
    if (left) {
      out << v;
      if (!last) out << pad;
    } else {
      out << pad << v;
    }
  };
  for (std::size_t j = 0; j < cols.size(); ++j) emit(j, cols[j]->header, cols[j]->left);
  out << '\n';
  for (std::size_t i = 0; i < t.rows; ++i) {
    for (std::size_t j = 0; j < cols.size(); ++j) emit(j, cols[j]->cells[i].text, cols[j]->left);
    out << '\n';
  }
}

/// Columns in JSON/CSV order: lead columns first, the rest as laid out.
std::vector<column const*> data_order(table_layout const& t) {
  std::vector<column const*> cols;
  for (auto const& c : t.columns)
    if (c.lead) cols.push_back(&c);
  for (auto const& c : t.columns)
    if (!c.lead) cols.push_back(&c);
  return cols;
}

void write_json_table(table_layout const& t, std::ostream& out) {
  auto const cols = data_order(t);
  out << "  " << json_string(t.name) << ": [";
  for (std::size_t i = 0; i < t.rows; ++i) {
    out << (i ? ",\n    {" : "\n    {");
    for (std::size_t j = 0; j < cols.size(); ++j)
      out << (j ? ", " : "") << json_string(cols[j]->key) << ": " << cols[j]->cells[i].json;
    out << '}';
  }
  out << (t.rows ? "\n  ]" : "]");
}

void write_csv(table_layout const& t, std::ostream& out) {
  auto const cols = data_order(t);
  for (std::size_t j = 0; j < cols.size(); ++j) out << (j ? "," : "") << csv_field(cols[j]->key);
  out << "\r\n";
  for (std::size_t i = 0; i < t.rows; ++i) {
    for (std::size_t j = 0; j < cols.size(); ++j) out << (j ? "," : "") << cols[j]->cells[i].csv;
    out << "\r\n";
  }
}

}  // namespace

void write_summary(summary const& s, output_format format, std::string const& table,
                   std::ostream& out) {
  if (!table.empty() && std::find(std::begin(summary_tables), std::end(summary_tables), table) ==
                            std::end(summary_tables))
    throw usage_error("--table " + table +
                      ": unknown table (expected devices, kernels, gaps or inputs)");
  std::vector<std::string_view> names;
  if (!table.empty())
    names.push_back(table);
  else if (format == output_format::csv)
    names.push_back("devices");
  else
    names.assign(std::begin(summary_tables), std::end(summary_tables));

  switch (format) {
    case output_format::text:
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out << '\n';
        write_text(layout(s, names[i]), out);
      }
      break;
    case output_format::json:
      out << "{\n";
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out << ",\n";
        write_json_table(layout(s, names[i]), out);
      }
      out << "\n}\n";
      break;
    case output_format::csv:
      write_csv(layout(s, names.front()), out);
      break;
  }
  out.flush();
}

}  // namespace tracesweep
