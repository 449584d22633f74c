// SPDX-License-Identifier: Apache-2.0
// Chrome-trace JSON of the tables that carry a timeline hint, to load beside the original trace
// in the Perfetto UI or chrome://tracing: one complete ("X") event per row on its process's
// track, the row's other scalar cells as args, process and thread names as metadata events.
// Times stay on the input's clock: ts and dur are microseconds with the nanoseconds as three
// decimals, so a reader gets back the exact nanoseconds.
#include <tracesweep/error.hpp>
#include <tracesweep/output/writer.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "output/render.hpp"

namespace tracesweep::output {

namespace {

/// Chrome's reserved colour names (cname), for the distinct values of a colour column in order.
constexpr char const* palette[] = {"terrible", "bad",       "yellow",  "olive",        "rail_load",
                                   "good",     "rail_idle", "startup", "generic_work", "grey"};

/// ns as microseconds with three decimals, exact.
std::string microseconds(std::int64_t ns) {
  auto const sign = ns < 0 ? "-" : "";
  auto const a = ns < 0 ? -static_cast<__int128>(ns) : static_cast<__int128>(ns);
  return fmt::format("{}{}.{:03}", sign, static_cast<std::int64_t>(a / 1000),
                     static_cast<int>(a % 1000));
}

std::optional<std::size_t> column_index(result_table const& t, std::string const& name) {
  for (std::size_t j = 0; j < t.columns.size(); ++j)
    if (t.columns[j].name == name) return j;
  return std::nullopt;
}

std::optional<std::int64_t> integer_at(row const& r, std::optional<std::size_t> j) {
  if (!j) return std::nullopt;
  if (auto const* v = std::get_if<std::int64_t>(&r.cells[*j])) return *v;
  return std::nullopt;
}

/// Writes the events; tracks are numbered per process in order of first use.
class timeline_writer {
 public:
  explicit timeline_writer(std::ostream& out) : _out(out) {}

  void table(result_table const& t) {
    auto const& s = t.spans;
    auto col = [&](std::string const& n) { return n.empty() ? std::nullopt : column_index(t, n); };
    auto const start = col(s.start), end = col(s.end), duration = col(s.duration);
    auto const process = col(s.process), thread = col(s.thread), label = col(s.label),
               colour = col(s.colour), required = col(s.required);
    if (!start || (!end && !duration))
      throw std::invalid_argument("timeline of table " + t.name + " names no start or end");
    std::map<std::string, std::size_t> colours;
    for_each_row(t, [&](row const& r) {
      if (required && std::holds_alternative<std::monostate>(r.cells[*required])) return;
      auto const b = integer_at(r, start);
      auto e = integer_at(r, end);
      if (!end)
        if (auto const d = integer_at(r, duration); b && d) e = *b + *d;
      if (!b || !e) return;
      auto const pid = integer_at(r, process).value_or(0);
      auto const tid = track(pid, t.name, integer_at(r, thread), s.track);
      std::string name = s.name;
      if (label) name = data_scalar(r.cells[*label], t.columns[*label]);
      std::string args;
      for (std::size_t j = 0; j < t.columns.size(); ++j) {
        auto const& c = r.cells[j];
        if (std::holds_alternative<std::monostate>(c) ||
            std::holds_alternative<std::shared_ptr<result_table const>>(c))
          continue;
        auto const v = data_scalar(c, t.columns[j]);
        args += fmt::format("{}{}: {}", args.empty() ? "" : ", ", json_string(t.columns[j].name),
                            std::holds_alternative<std::string>(c) ? json_string(v) : v);
      }
      std::string cname;
      if (colour) {
        auto const key = data_scalar(r.cells[*colour], t.columns[*colour]);
        auto const k = colours.try_emplace(key, colours.size()).first->second;
        cname = fmt::format(", \"cname\": \"{}\"", palette[k % std::size(palette)]);
      }
      event(fmt::format(
          "{{\"ph\": \"X\", \"cat\": {}, \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, "
          "\"dur\": {}{}, \"args\": {{{}}}}}",
          json_string(s.category), json_string(name), pid, tid, microseconds(*b),
          microseconds(*e - *b), cname, args));
    });
  }

  void finish() {
    for (auto const& [pid, tracks] : _tracks) {
      event(
          fmt::format("{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"tid\": 0, "
                      "\"args\": {{\"name\": \"tracesweep findings, rank {}\"}}}}",
                      pid, pid));
      for (auto const& [key, tid] : tracks)
        event(
            fmt::format("{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {}, \"tid\": {}, "
                        "\"args\": {{\"name\": {}}}}}",
                        pid, tid, json_string(std::get<2>(key))));
    }
    if (_first) _out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
    _out << "\n]}\n";
  }

 private:
  /// The track's thread id in its process: one per (table, thread value).
  std::int64_t track(std::int64_t pid, std::string const& table, std::optional<std::int64_t> th,
                     std::string const& pattern) {
    std::string name = pattern;
    if (auto const at = name.find("{}"); at != std::string::npos)
      name.replace(at, 2, th ? std::to_string(*th) : "-");
    auto& tracks = _tracks[pid];
    auto const key = std::tuple(table, th.value_or(-1), name);
    auto const [it, fresh] = tracks.try_emplace(key, static_cast<std::int64_t>(tracks.size() + 1));
    return it->second;
  }

  void event(std::string const& e) {
    _out << (_first ? "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n" : ",\n") << e;
    _first = false;
  }

  std::ostream& _out;
  bool _first = true;
  std::map<std::int64_t, std::map<std::tuple<std::string, std::int64_t, std::string>, std::int64_t>>
      _tracks;
};

}  // namespace

void write_perfetto(result_set const& results, std::string_view table, std::ostream& out,
                    write_options const&) {
  std::vector<result_table const*> drawn;
  std::vector<std::string> names;
  for (auto const& t : results.tables) {
    if (t.spans.start.empty()) continue;
    names.push_back(t.name);
    if (table.empty() || t.name == table) drawn.push_back(&t);
  }
  if (!table.empty() && drawn.empty()) throw unknown_table_error(std::string(table), names);
  timeline_writer w(out);
  for (auto const* t : drawn) w.table(*t);
  w.finish();
  out.flush();
}

}  // namespace tracesweep::output
