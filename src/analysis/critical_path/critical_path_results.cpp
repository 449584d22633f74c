// SPDX-License-Identifier: Apache-2.0
// The critical paths as result tables: one row per window, its length by bound type, its edges
// in path order, its events by time on the path, the payoff of the costliest, the what-ifs.
#include <tracesweep/analysis/critical_path.hpp>

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
std::vector<cell> window_cells(critical_path_window const& w) {
  return {std::int64_t{w.rank}, static_cast<std::int64_t>(w.instance)};
}

double share(std::int64_t part, std::int64_t total) {
  return total > 0 ? static_cast<double>(part) / static_cast<double>(total) : 0.0;
}

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
      auto c = window_cells(w);
      c.insert(
          c.end(),
          {w.name, w.start_ns, w.end_ns, w.total_ns, static_cast<std::int64_t>(w.edges.size()),
           static_cast<std::int64_t>(w.path_events), static_cast<std::int64_t>(w.graph_nodes),
           static_cast<std::int64_t>(w.graph_edges), w.failure.empty() ? cell() : cell(w.failure)});
      t.add_row(std::move(c));
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
        auto c = window_cells(w);
        c.insert(c.end(), {std::string(path_bound_name(static_cast<path_bound>(b))), ns,
                           share(ns, w.total_ns)});
        t.add_row(std::move(c));
      }
    }
    return t;
  }

  result_table edges(critical_path_result const& r) const {
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
    for (auto const& w : r.windows) {
      std::int64_t i = 0;
      for (auto const& e : w.edges) {
        auto c = window_cells(w);
        c.insert(c.end(), {i++, name(e.from_row), std::string(e.from_start ? "start" : "end"),
                           e.from_ns, name(e.to_row), std::string(e.to_start ? "start" : "end"),
                           e.to_ns, std::string(path_edge_type_name(e.type)), e.weight_ns,
                           e.event >= 0 ? cell(name(static_cast<std::size_t>(e.event))) : cell(),
                           std::string(path_bound_name(e.bound))});
        t.add_row(std::move(c));
      }
    }
    return t;
  }

  /// The events on each path; `per_window` > 0: only the first (costliest) of each, for text.
  result_table events(critical_path_result const& r, std::size_t per_window = 0) const {
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
    for (auto const& w : r.windows)
      for (auto const& e : w.events) {
        if (per_window > 0 && &e - w.events.data() >= static_cast<std::ptrdiff_t>(per_window))
          break;
        auto c = window_cells(w);
        c.insert(c.end(),
                 {name(e.row), std::string(to_string(_t.kind[e.row])), _t.start_ns[e.row],
                  _t.end_ns[e.row] - _t.start_ns[e.row], e.time_ns, share(e.time_ns, w.total_ns)});
        t.add_row(std::move(c));
      }
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
        auto c = window_cells(w);
        c.insert(c.end(), {name(p.row), _t.start_ns[p.row], p.time_ns, p.saved_ns});
        t.add_row(std::move(c));
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
        auto c = window_cells(w);
        c.insert(c.end(), {std::string(_t.strings().at(p.name)),
                           static_cast<std::int64_t>(p.instances), p.time_ns, p.saved_ns});
        t.add_row(std::move(c));
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
      auto c = window_cells(w);
      c.insert(c.end(), {w.name, w.total_ns, *w.what_if_ns, w.total_ns - *w.what_if_ns});
      t.add_row(std::move(c));
    }
    return t;
  }

 private:
  event_table const& _t;
};

}  // namespace

output::result_set critical_path_results(critical_path_result const& result,
                                         trace_model const& model, bool what_ifs) {
  table_builder const b(model);
  output::result_set set;
  set.tables.push_back(b.paths(result));
  set.tables.push_back(b.summary(result));
  set.tables.push_back(b.events(result));
  set.tables.push_back(b.events(result, 10));
  set.tables.push_back(b.payoffs(result));
  set.tables.push_back(b.name_payoffs(result));
  if (what_ifs) set.tables.push_back(b.what_ifs(result));
  set.tables.push_back(b.edges(result));
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
