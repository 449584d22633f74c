// SPDX-License-Identifier: Apache-2.0
// The critical paths as result tables: one row per window, its length by bound type, its edges
// in path order, its events by time on the path, the payoff of the costliest, the what-ifs.
#include <tracesweep/analysis/critical_path.hpp>

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace tracesweep {

namespace {

using output::cell, output::result_table;
using enum output::value_type;

result_table path_table(std::string name, std::string title) {
  result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  return t;
}

void add_ms(result_table& t, std::string name, std::string label) {
  auto& c = t.add(std::move(name), integer, "ns", std::move(label));
  c.text_unit = "ms";
  c.decimals = 3;
}

/// The window's columns every table starts with.
void add_window(result_table& t) {
  t.add("rank", integer);
  t.add("instance", integer);
}
/// A row: the window's cells, then `rest` moved in (an initializer list would copy every cell,
/// names and all).
template <class... Cells>
std::vector<cell> window_row(critical_path_window const& w, Cells&&... rest) {
  std::vector<cell> c;
  c.reserve(2 + sizeof...(rest));
  c.emplace_back(std::int64_t{w.rank});
  c.emplace_back(static_cast<std::int64_t>(w.instance));
  (c.emplace_back(std::forward<Cells>(rest)), ...);
  return c;
}

double share(std::int64_t part, std::int64_t total) {
  return total > 0 ? static_cast<double>(part) / static_cast<double>(total) : 0.0;
}

/// What the two long listings (every edge, every event on the paths) read as a writer reaches
/// each row, so that their rows never exist all at once (a path has as many edges as its window
/// has operators and kernels): the paths, and of each row the event table's names and times it
/// shows, taken up front (the result set may outlive the event table: a Python caller keeps it).
struct path_listing {
  static constexpr std::uint32_t no_name = UINT32_MAX;
  struct edge_row {
    std::size_t window = 0, edge = 0;
    std::uint32_t from = 0, to = 0, event = no_name;  ///< into names
  };
  struct event_row {
    std::size_t window = 0, event = 0;
    std::uint32_t name = 0;
    event_kind kind = event_kind::kernel;
    std::int64_t start_ns = 0, duration_ns = 0;
  };
  critical_path_result result;
  std::vector<std::string> names;  ///< the distinct names of the rows the paths name
  std::vector<edge_row> edges;     ///< every window's, in path order
  std::vector<event_row> events;   ///< every window's, most time first

  path_listing(critical_path_result r, event_table const& t) : result(std::move(r)) {
    std::unordered_map<string_id, std::uint32_t> local;
    auto const name_of = [&](std::size_t row) {
      auto const [at, added] =
          local.try_emplace(t.name[row], static_cast<std::uint32_t>(local.size()));
      if (added) names.emplace_back(t.strings().at(t.name[row]));
      return at->second;
    };
    for (std::size_t w = 0; w < result.windows.size(); ++w) {
      auto const& win = result.windows[w];
      for (std::size_t i = 0; i < win.edges.size(); ++i) {
        auto const& e = win.edges[i];
        edges.push_back({w, i, name_of(e.from_row), name_of(e.to_row),
                         e.event >= 0 ? name_of(static_cast<std::size_t>(e.event)) : no_name});
      }
      for (std::size_t i = 0; i < win.events.size(); ++i) {
        auto const row = win.events[i].row;
        events.push_back(
            {w, i, name_of(row), t.kind[row], t.start_ns[row], t.end_ns[row] - t.start_ns[row]});
      }
    }
  }
};
using listing_ptr = std::shared_ptr<path_listing const>;

class table_builder {
 public:
  explicit table_builder(trace_model const& model) : _t(model.table()) {}

  std::string name(std::size_t row) const { return std::string(_t.strings().at(_t.name[row])); }

  result_table paths(critical_path_result const& r) const {
    auto t = path_table("critical_path", "Critical path");
    add_window(t);
    t.add("window", string);
    t.add("start_ns", integer, "ns", "start").timestamp = true;
    t.add("end_ns", integer, "ns", "end").timestamp = true;
    add_ms(t, "total_ns", "path (ms)");
    t.add("edges", integer);
    t.add("events", integer);
    t.add("graph_nodes", integer, "", "nodes").views = output::json | output::flat;
    t.add("graph_edges", integer, "", "graph edges").views = output::json | output::flat;
    t.add("failure", string).json_omit_null = true;
    for (auto const& w : r.windows) {
      t.add_row(window_row(
          w, w.name, w.start_ns, w.end_ns, w.total_ns, static_cast<std::int64_t>(w.edges.size()),
          static_cast<std::int64_t>(w.path_events), static_cast<std::int64_t>(w.graph_nodes),
          static_cast<std::int64_t>(w.graph_edges), w.failure.empty() ? cell() : cell(w.failure)));
    }
    return t;
  }

  result_table summary(critical_path_result const& r) const {
    auto t = path_table("critical_path_summary", "Critical path by bound type");
    add_window(t);
    t.add("bound_by", string, "", "bound by");
    add_ms(t, "duration_ns", "time (ms)");
    auto& s = t.add("share", real, "fraction");
    s.text_unit = "%";
    s.decimals = 2;
    t.plot = {output::chart_kind::bars,     "bound_by", "duration_ns", "", "bound by",
              "time on the critical paths", {},         false};
    for (auto const& w : r.windows) {
      if (!w.failure.empty()) continue;
      std::array<bool, path_bound_count> on_path{};  // as HTA: the bound types of its edges
      for (auto const& e : w.edges) on_path[static_cast<std::size_t>(e.bound)] = true;
      for (std::size_t b = 0; b < path_bound_count; ++b) {
        auto const ns = w.bound_ns[b];
        if (!on_path[b]) continue;
        t.add_row(window_row(w, std::string(path_bound_name(static_cast<path_bound>(b))), ns,
                             share(ns, w.total_ns)));
      }
    }
    return t;
  }

  static result_table edges(listing_ptr const& l) {
    auto t = path_table("critical_path_edges", "Critical path edges");
    t.views = output::json | output::flat;
    add_window(t);
    t.add("index", integer);
    t.add("from", string).symbol = true;
    t.add("from_point", string);
    t.add("from_ns", integer, "ns");
    t.add("to", string).symbol = true;
    t.add("to_point", string);
    t.add("to_ns", integer, "ns");
    t.add("type", string);
    t.add("weight_ns", integer, "ns");
    t.add("event", string).symbol = true;
    t.add("bound_by", string);
    // perfetto: the path as one track of its edges, coloured by what bounds them
    t.spans = {"from_ns", "to_ns",         "",         "rank", "", "critical path", "type",
               "",        "critical_path", "bound_by", ""};
    t.generated_rows = l->edges.size();
    t.generate = [l](std::size_t i) {
      auto const& r = l->edges[i];
      auto const& w = l->result.windows[r.window];
      auto const& e = w.edges[r.edge];
      auto const& names = l->names;
      return output::row{
          window_row(w, static_cast<std::int64_t>(r.edge), names[r.from],
                     std::string(e.from_start ? "start" : "end"), e.from_ns, names[r.to],
                     std::string(e.to_start ? "start" : "end"), e.to_ns,
                     std::string(path_edge_type_name(e.type)), e.weight_ns,
                     r.event == path_listing::no_name ? cell() : cell(names[r.event]),
                     std::string(path_bound_name(e.bound)))};
    };
    return t;
  }

  /// The events on each path; `per_window` > 0: only the first (costliest) of each, for text.
  static result_table events_table(std::size_t per_window) {
    auto t = path_table("critical_path_events",
                        per_window > 0 ? "Events on the critical path, the costliest " +
                                             std::to_string(per_window) + " of each"
                                       : "Events on the critical path");
    t.views = per_window > 0 ? output::text | output::html : output::json | output::flat;
    add_window(t);
    t.add("name", string).symbol = true;
    t.add("kind", string);
    t.add("start_ns", integer, "ns", "start").timestamp = true;
    add_ms(t, "duration_ns", "duration (ms)");
    add_ms(t, "time_ns", "on path (ms)");
    auto& s = t.add("share", real, "fraction");
    s.text_unit = "%";
    s.decimals = 2;
    if (per_window == 0)  // perfetto draws the whole list once
      t.spans = {"start_ns", "", "duration_ns",   "rank", "", "critical path: events",
                 "name",     "", "critical_path", "kind", ""};
    return t;
  }

  static output::row event_row(path_listing const& l, path_listing::event_row const& r) {
    auto const& w = l.result.windows[r.window];
    auto const time = w.events[r.event].time_ns;
    return output::row{window_row(w, l.names[r.name], std::string(to_string(r.kind)), r.start_ns,
                                  r.duration_ns, time, share(time, w.total_ns))};
  }

  /// Every event on every path, made as the writer reaches it.
  static result_table events(listing_ptr const& l) {
    auto t = events_table(0);
    t.generated_rows = l->events.size();
    t.generate = [l](std::size_t i) { return event_row(*l, l->events[i]); };
    return t;
  }

  /// The costliest `per_window` events of each path.
  static result_table top_events(path_listing const& l, std::size_t per_window) {
    auto t = events_table(per_window);
    for (auto const& r : l.events)
      if (r.event < per_window) t.rows.push_back(event_row(l, r));
    return t;
  }

  result_table payoffs(critical_path_result const& r) const {
    auto t = path_table("critical_path_payoff", "What each costly event bounds");
    add_window(t);
    t.add("name", string).symbol = true;
    t.add("start_ns", integer, "ns", "start").timestamp = true;
    add_ms(t, "time_ns", "on path (ms)");
    add_ms(t, "saved_ns", "saved if it took no time (ms)");
    t.plot = {output::chart_kind::bars,
              "name",
              "saved_ns",
              "",
              "event",
              "step time saved if it took no time",
              {},
              false};
    for (auto const& w : r.windows)
      for (auto const& p : w.payoffs) {
        t.add_row(window_row(w, name(p.row), _t.start_ns[p.row], p.time_ns, p.saved_ns));
      }
    return t;
  }

  result_table name_payoffs(critical_path_result const& r) const {
    auto t = path_table("critical_path_name_payoff", "What each costly name bounds");
    add_window(t);
    t.add("name", string).symbol = true;
    t.add("instances", integer);
    add_ms(t, "time_ns", "on path (ms)");
    add_ms(t, "saved_ns", "saved if none took time (ms)");
    for (auto const& w : r.windows)
      for (auto const& p : w.name_payoffs) {
        t.add_row(window_row(w, std::string(_t.strings().at(p.name)),
                             static_cast<std::int64_t>(p.instances), p.time_ns, p.saved_ns));
      }
    return t;
  }

  result_table what_ifs(critical_path_result const& r) const {
    auto t = path_table("critical_path_what_if", "What if");
    add_window(t);
    t.add("window", string);
    add_ms(t, "before_ns", "path (ms)");
    add_ms(t, "after_ns", "what-if path (ms)");
    add_ms(t, "saved_ns", "saved (ms)");
    for (auto const& w : r.windows) {
      if (!w.what_if_ns) continue;
      t.add_row(window_row(w, w.name, w.total_ns, *w.what_if_ns, w.total_ns - *w.what_if_ns));
    }
    return t;
  }

 private:
  event_table const& _t;
};

}  // namespace

output::result_set critical_path_results(critical_path_result found, trace_model const& model,
                                         bool what_ifs) {
  table_builder const b(model);
  auto const listing = std::make_shared<path_listing const>(std::move(found), model.table());
  auto const& result = listing->result;
  output::result_set set;
  set.tables.push_back(b.paths(result));
  set.tables.push_back(b.summary(result));
  set.tables.push_back(table_builder::events(listing));
  set.tables.push_back(table_builder::top_events(*listing, 10));
  set.tables.push_back(b.payoffs(result));
  set.tables.push_back(b.name_payoffs(result));
  if (what_ifs) set.tables.push_back(b.what_ifs(result));
  set.tables.push_back(table_builder::edges(listing));
  set.notes = result.notes;
  for (auto const& w : result.windows)  // text shows times from the first window's start
    if (!set.time_origin_ns || w.start_ns < *set.time_origin_ns) set.time_origin_ns = w.start_ns;
  set.time_origin_name = "the first window's start";
  for (auto const& w : result.windows)
    if (!w.failure.empty())
      set.notes.push_back("rank " + std::to_string(w.rank) + " window " +
                          std::to_string(w.instance) + ": no critical path: " + w.failure);
  return set;
}

}  // namespace tracesweep
