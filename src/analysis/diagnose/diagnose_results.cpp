// SPDX-License-Identifier: Apache-2.0
// The diagnosis as result tables. JSON gets every list with absolute *_ns times on the input's
// clock; text gets the verdicts, the findings ranked by the time they cost (each with why it
// matters and where to look) and the largest gaps.
#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/output/range_names.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose_parts.hpp"
#include "reports/result_columns.hpp"

namespace tracesweep {

using output::cell, output::column, output::nest, output::result_table, output::json_shape;
using enum output::value_type;

namespace diagnose_detail {

result_table diagnose_table(std::string name, std::string title, unsigned views) {
  result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  t.views = views;
  return t;
}

void where_cells(std::vector<cell>& cells, device_key const& w, bool input) {
  if (input) cells.emplace_back(static_cast<std::int64_t>(w.input));
  cells.emplace_back(static_cast<std::int64_t>(w.rank));
  cells.emplace_back(static_cast<std::int64_t>(w.device));
}

result_table event_rows() {
  result_table t;
  t.add("name", string);
  t.add("kind", string);
  t.add("thread", integer);
  t.add("start_ns", integer, "ns");
  t.add("end_ns", integer, "ns");
  return t;
}

std::vector<cell> event_cells(context_event const& e) {
  return {e.name, std::string(to_string(e.kind)), static_cast<std::int64_t>(e.thread), e.start_ns,
          e.end_ns};
}

cell events_cell(std::vector<context_event> const& events) {
  auto t = event_rows();
  for (auto const& e : events) t.add_row(event_cells(e));
  return nest(std::move(t));
}

}  // namespace diagnose_detail

namespace {

using diagnose_detail::diagnose_table;
using diagnose_detail::event_cells, diagnose_detail::event_rows, diagnose_detail::events_cell,
    diagnose_detail::where_cells;
using tables::result_columns::i64;

constexpr unsigned data_views = output::json | output::flat;
constexpr unsigned shown_views = output::text | output::html;

void add_where(result_table& t, bool input = true) {
  if (input) t.add("input", integer);
  t.add("rank", integer);
  t.add("device", integer);
}

/// A map cell: cause → ns, every cause listed.
cell idle_map(idle_by_cause const& idle) {
  result_table m;
  m.shape = json_shape::map;
  m.add("cause", string);
  m.add("ns", integer, "ns");
  for (int c = 0; c < idle_cause_count; ++c)
    m.add_row({std::string(to_string(static_cast<idle_cause>(c))), i64(idle[c])});
  return nest(std::move(m));
}

/// Makes the gaps table's rows as the writer reaches them, naming each gap's context rows then.
/// The nested tables of a row (cover, host, before, after) are refilled in place once the writer
/// has let go of the previous row's, so that a row of a long listing allocates next to nothing.
class gap_rows {
 public:
  explicit gap_rows(diagnosis const& d) : _d(d) {}

  output::row operator()(std::size_t i) {
    auto const& g = _d.gaps[i];
    output::row r;
    r.cells.reserve(12);
    where_cells(r.cells, g.where);
    r.cells.insert(
        r.cells.end(),
        {i64(g.start_ns), i64(g.end_ns), i64(g.duration()), std::string(to_string(g.cause)),
         cover(g.cover), host(_d.host_of(g)), event(_before, g.before), event(_after, g.after)});
    return r;
  }

 private:
  using table_ptr = std::shared_ptr<result_table>;

  /// `t` made anew by `make` unless nobody else holds it.
  static result_table& own(table_ptr& t, result_table (*make)()) {
    if (!t || t.use_count() > 1) t = std::make_shared<result_table>(make());
    return *t;
  }
  static result_table cover_map() {
    result_table m;
    m.shape = json_shape::map;
    m.add("cause", string);
    m.add("ns", integer, "ns");
    for (int c = 0; c < idle_cause_count; ++c)
      m.add_row({std::string(to_string(static_cast<idle_cause>(c))), i64(0)});
    return m;
  }
  static result_table one_event() {
    auto t = event_rows();
    t.shape = json_shape::object;
    return t;
  }
  /// The cells of event-table row `row`, written over the ones already there.
  void fill(std::vector<cell>& cells, std::size_t row) const {
    auto const& t = *_d.events;
    cells.resize(5);
    auto const name = t.strings().at(t.name[row]);
    if (auto* s = std::get_if<std::string>(&cells[0]))
      s->assign(name);
    else
      cells[0] = std::string(name);
    cells[1] = std::string(to_string(t.kind[row]));
    cells[2] = static_cast<std::int64_t>(t.stream[row]);
    cells[3] = t.start_ns[row];
    cells[4] = t.end_ns[row];
  }
  cell cover(idle_by_cause const& idle) {
    auto& m = own(_cover, cover_map);
    for (std::size_t c = 0; c < idle.size(); ++c) m.rows[c].cells[1] = idle[c];
    return _cover;
  }
  cell host(std::span<std::size_t const> rows) {
    auto& t = own(_host, event_rows);
    t.rows.resize(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) fill(t.rows[k].cells, rows[k]);
    return _host;
  }
  cell event(table_ptr& kept, std::int64_t row) {
    if (row < 0) return {};
    auto& t = own(kept, one_event);
    t.rows.resize(1);
    fill(t.rows[0].cells, static_cast<std::size_t>(row));
    return kept;
  }

  diagnosis const& _d;
  table_ptr _cover, _host, _before, _after;
};

result_table verdicts(diagnosis const& d) {
  auto t = diagnose_table("verdicts", "Verdicts", data_views);
  // perfetto: the steps, one span per (device, step), named by their verdict.
  t.spans = {"window_start_ns", "window_end_ns", "",        "rank",
             "device",          "GPU {} steps",  "verdict", "",
             "tracesweep.step", "verdict",       "step"};
  add_where(t);
  t.add("step", integer);
  t.add("step_name", string);
  t.add("window_start_ns", integer, "ns");
  t.add("window_end_ns", integer, "ns");
  t.add("verdict", string);
  t.add("busy_share", real, "fraction");
  t.add("exposed_communication_share", real, "fraction");
  t.add("idle_by_cause", nested);
  t.add("idle_short_ns", integer, "ns");
  for (auto const& v : d.verdicts) {
    std::vector<cell> c;
    where_cells(c, v.where);
    c.emplace_back(v.step ? cell(i64(*v.step)) : cell());
    c.emplace_back(v.step ? cell(v.step_name) : cell());
    c.insert(c.end(),
             {i64(v.window_start_ns), i64(v.window_end_ns), std::string(to_string(v.what)),
              v.busy_share, v.exposed_communication_share, idle_map(v.idle), i64(v.idle_short_ns)});
    t.add_row(std::move(c));
  }
  return t;
}

/// The idle cause with the most time in `v` (holes shorter than the minimum gap count as "short
/// holes"), as "cause share%".
std::string main_idle(verdict_row const& v) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < v.idle.size(); ++c)
    if (v.idle[c] > v.idle[best]) best = c;
  std::int64_t const window = v.window_end_ns - v.window_start_ns;
  bool const short_holes = v.idle_short_ns > v.idle[best];
  std::int64_t const ns = short_holes ? v.idle_short_ns : v.idle[best];
  if (ns == 0 || window <= 0) return "-";
  return fmt::format(
      "{} {:.1f}%",
      short_holes ? std::string_view("short holes") : to_string(static_cast<idle_cause>(best)),
      100.0 * static_cast<double>(ns) / static_cast<double>(window));
}

result_table verdicts_text(diagnosis const& d) {
  auto t = diagnose_table("verdicts", "Verdicts", shown_views);
  add_where(t, false);
  t.add("verdict", string);
  auto& busy = t.add("busy_share", real, "fraction", "busy (%)");
  busy.text_unit = "%";
  busy.decimals = 1;
  auto& comm = t.add("exposed_communication_share", real, "fraction", "exposed comm (%)");
  comm.text_unit = "%";
  comm.decimals = 1;
  t.add("idle", string, "", "main idle cause (share)");
  t.add("steps", nested, "", "steps by verdict");
  for (auto const& v : d.verdicts) {
    if (v.step) continue;
    std::map<std::string, std::int64_t> per_step;
    for (auto const& s : d.verdicts)
      if (s.step && s.where.input == v.where.input && s.where.rank == v.where.rank &&
          s.where.device == v.where.device)
        ++per_step[std::string(to_string(s.what))];
    result_table m;
    m.shape = json_shape::map;
    m.add("verdict", string);
    m.add("steps", integer);
    for (auto const& [k, n] : per_step) m.add_row({k, i64(n)});
    std::vector<cell> c;
    where_cells(c, v.where, false);
    c.insert(c.end(), {std::string(to_string(v.what)), v.busy_share, v.exposed_communication_share,
                       main_idle(v), nest(std::move(m))});
    t.add_row(std::move(c));
  }
  return t;
}

result_table gaps(diagnosis const& d) {
  auto t = diagnose_table("gaps", "Idle gaps", data_views);
  // perfetto: one track of gaps per device, named and coloured by cause.
  t.spans = {"start_ns", "end_ns",         "",      "rank", "device", "GPU {} idle gaps", "cause",
             "",         "tracesweep.gap", "cause", ""};
  add_where(t);
  for (auto n : {"start_ns", "end_ns", "duration_ns"}) t.add(n, integer, "ns");
  t.add("cause", string);
  t.add("cover", nested);
  t.add("host", nested);
  t.add("before", nested);
  t.add("after", nested);
  // Every gap with --top 0: each row is made as the writer reaches it (its cells, nested tables
  // and strings are ten times the size of the finding), not all at once.
  t.generated_rows = d.gaps.size();
  t.generate = gap_rows(d);
  return t;
}

std::string shorten(std::string const& s, std::size_t n = 48) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

/// One origin for every relative time of a diagnosis: the first GPU operation (the earliest start
/// of a device's window), as the summary's.
std::optional<std::int64_t> time_origin(diagnosis const& d) {
  std::optional<std::int64_t> first;
  for (auto const& v : d.verdicts)
    if (!v.step) first = std::min(first.value_or(v.window_start_ns), v.window_start_ns);
  return first;
}

result_table gaps_text(diagnosis const& d) {
  auto t = diagnose_table("gaps", "Largest idle gaps", shown_views);
  add_where(t, false);
  auto& at = t.add("at_ns", integer, "ns", "at (ms)");
  at.text_unit = "ms";
  at.decimals = 3;
  at.from_time_origin = true;
  auto& dur = t.add("duration_ns", integer, "ns", "duration (ms)");
  dur.text_unit = "ms";
  dur.decimals = 3;
  t.add("cause", string);
  t.add("host", string, "", "host during the gap");
  t.add("neighbours", string, "", "before -> after").text_last = true;
  auto const origin = time_origin(d).value_or(0);
  for (std::size_t k = 0; k < d.gaps.size() && k < 10; ++k) {
    auto const& g = d.gaps[k];
    std::string host;
    auto const rows = d.host_of(g);
    for (std::size_t h = 0; h < rows.size() && h < 3; ++h)
      host +=
          (h ? ", " : "") +
          shorten(std::string(output::without_emit_nvtx_suffixes(d.describe(rows[h])->name)), 32);
    auto const named = [&](std::int64_t row) {
      auto const e = d.describe(row);
      return e ? shorten(e->name, 40) : "-";
    };
    std::string const before = named(g.before);
    std::string const after = named(g.after);
    std::vector<cell> c;
    where_cells(c, g.where, false);
    c.insert(c.end(), {i64(g.start_ns - origin), i64(g.duration()), std::string(to_string(g.cause)),
                       host.empty() ? "-" : host, before + " -> " + after});
    t.add_row(std::move(c));
  }
  return t;
}

result_table periodic(diagnosis const& d) {
  auto t = diagnose_table("periodic_gaps", "Periodic gaps", data_views);
  add_where(t);
  t.add("period_ns", integer, "ns");
  t.add("count", integer);
  t.add("total_ns", integer, "ns");
  t.add("share", real, "fraction");
  t.add("cause", string);
  t.add("first_start_ns", integer, "ns");
  for (auto const& p : d.periodic_gaps) {
    std::vector<cell> c;
    where_cells(c, p.where);
    c.insert(c.end(), {i64(p.period_ns), i64(p.count), i64(p.total_ns), p.share,
                       std::string(to_string(p.cause)), i64(p.first_start_ns)});
    t.add_row(std::move(c));
  }
  return t;
}

result_table long_tail(diagnosis const& d) {
  auto t = diagnose_table("long_tail", "Long-tail kernels", data_views);
  t.spans = {"start_ns", "", "duration_ns",          "rank", "device", "GPU {} long-tail kernels",
             "name",     "", "tracesweep.long_tail", "",     ""};
  add_where(t);
  t.add("name", string).symbol = true;
  t.add("launch", string);
  t.add("start_ns", integer, "ns");
  t.add("duration_ns", integer, "ns");
  t.add("median_ns", integer, "ns");  // every *_ns is an integer: the median rounded
  t.add("ratio", real);
  t.add("launched_by", string);
  t.add("host", nested);
  for (auto const& l : d.long_tail) {
    std::vector<cell> c;
    where_cells(c, l.where);
    c.insert(c.end(), {l.name, l.launch.empty() ? cell() : cell(l.launch), i64(l.start_ns),
                       i64(l.duration_ns), i64(std::llround(l.median_ns)),
                       static_cast<double>(l.duration_ns) / l.median_ns,
                       l.launched_by.empty() ? cell() : cell(l.launched_by), events_cell(l.host)});
    t.add_row(std::move(c));
  }
  return t;
}

result_table long_tail_names(diagnosis const& d) {
  auto t = diagnose_table("long_tail_names", "Long-tail kernels by name and launch configuration",
                          data_views);
  t.add("name", string).symbol = true;
  t.add("launch", string);
  t.add("instances", integer);
  t.add("excess_ns", integer, "ns");
  t.add("median_ns", integer, "ns");
  t.add("worst_ratio", real);
  for (auto const& n : d.long_tail_names)
    t.add_row({n.name, n.launch.empty() ? cell() : cell(n.launch), i64(n.instances),
               i64(n.excess_ns), i64(std::llround(n.median_ns)), n.worst_ratio});
  return t;
}

result_table bursts(diagnosis const& d) {
  auto t = diagnose_table("tiny_kernel_bursts", "Tiny-kernel bursts", data_views);
  t.spans = {"start_ns",
             "end_ns",
             "",
             "rank",
             "device",
             "GPU {} tiny-kernel bursts",
             "",
             "tiny-kernel burst",
             "tracesweep.burst",
             "",
             ""};
  add_where(t);
  for (auto n : {"start_ns", "end_ns"}) t.add(n, integer, "ns");
  t.add("kernels", integer);
  t.add("kernel_ns", integer, "ns");
  t.add("launched_by", string);
  for (auto const& b : d.bursts) {
    std::vector<cell> c;
    where_cells(c, b.where);
    c.insert(c.end(), {i64(b.start_ns), i64(b.end_ns), i64(b.kernels), i64(b.kernel_ns),
                       b.launched_by.empty() ? cell() : cell(b.launched_by)});
    t.add_row(std::move(c));
  }
  return t;
}

result_table sync(diagnosis const& d) {
  auto t = diagnose_table("sync", "Synchronising calls", data_views | shown_views);
  t.add("input", integer).views = data_views;
  t.add("rank", integer);
  t.add("thread", integer);
  t.add("calls", integer);
  auto& total = t.add("total_ns", integer, "ns", "total (ms)");
  total.text_unit = "ms";
  total.decimals = 3;
  auto& s = t.add("share", real, "fraction", "share (%)");
  s.text_unit = "%";
  s.decimals = 1;
  for (auto const& r : d.sync)
    t.add_row({i64(r.input), i64(r.rank), i64(r.thread), i64(r.calls), i64(r.total_ns), r.share});
  return t;
}

result_table memcpy_table(diagnosis const& d) {
  auto t = diagnose_table("memcpy", "Memory copies", data_views | shown_views);
  add_where(t);
  t.columns.front().views = data_views;
  t.add("direction", string);
  t.add("calls", integer);
  auto& total = t.add("total_ns", integer, "ns", "total (ms)");
  total.text_unit = "ms";
  total.decimals = 3;
  t.add("bytes", integer, "bytes");
  auto& s = t.add("share", real, "fraction", "share (%)");
  s.text_unit = "%";
  s.decimals = 2;
  for (auto const& m : d.memcpy) {
    std::vector<cell> c;
    where_cells(c, m.where);
    c.insert(c.end(), {m.direction, i64(m.calls), i64(m.total_ns), i64(m.bytes), m.share});
    t.add_row(std::move(c));
  }
  return t;
}

result_table small_copies(diagnosis const& d) {
  auto t = diagnose_table("small_copies", "Steps with many small copies", data_views);
  add_where(t);
  t.add("step", integer);
  t.add("step_name", string);
  t.add("direction", string);
  t.add("copies", integer);
  t.add("bytes", integer, "bytes");
  t.add("total_ns", integer, "ns");
  for (auto const& s : d.small_copies) {
    std::vector<cell> c;
    where_cells(c, s.where);
    c.insert(c.end(),
             {i64(s.step), s.step_name, s.direction, i64(s.copies), i64(s.bytes), i64(s.total_ns)});
    t.add_row(std::move(c));
  }
  return t;
}

result_table ranks(diagnosis const& d) {
  auto t = diagnose_table("ranks", "Ranks", data_views | shown_views);
  t.add("rank", integer);
  t.add("steps", integer);
  auto& mean = t.add("mean_step_ns", integer, "ns", "mean step (ms)");
  mean.text_unit = "ms";
  mean.decimals = 3;
  auto& wait = t.add("mean_wait_ns", integer, "ns", "collective wait (ms)");
  wait.text_unit = "ms";
  wait.decimals = 3;
  auto& u = t.add("utilization", real, "fraction", "util (%)");
  u.text_unit = "%";
  u.decimals = 1;
  for (auto const& r : d.ranks)
    t.add_row({i64(r.rank), i64(r.steps), i64(r.mean_step_ns), i64(r.mean_wait_ns), r.utilization});
  return t;
}

result_table stragglers(diagnosis const& d) {
  auto t = diagnose_table("stragglers", "Stragglers", data_views);
  t.add("rank", integer);
  t.add("mean_step_ns", integer, "ns");
  t.add("median_rank_step_ns", integer, "ns");
  t.add("excess", real, "fraction");
  t.add("mean_wait_ns", integer, "ns");
  t.add("work_excess", real, "fraction");
  for (auto const& s : d.stragglers)
    t.add_row({i64(s.rank), i64(s.mean_step_ns), i64(s.median_rank_step_ns), s.excess,
               i64(s.mean_wait_ns), s.work_excess});
  return t;
}

result_table totals(diagnosis const& d) {
  auto t = diagnose_table("totals", "Totals", output::json);
  t.shape = json_shape::object;
  for (auto n : {"gaps", "long_tail", "tiny_kernel_bursts", "small_copies"}) t.add(n, integer);
  t.add("min_gap_ns", integer, "ns");
  t.add("top", integer);
  t.add_row({i64(d.gaps_total), i64(d.long_tail_total), i64(d.bursts_total),
             i64(d.small_copies_total), i64(d.options.min_gap_ns),
             i64(static_cast<std::int64_t>(d.options.top))});
  return t;
}

}  // namespace

output::result_set diagnose_results(diagnosis diagnosed) {
  // The tables that make their rows as they are written read the diagnosis then: they keep it.
  auto const kept = std::make_shared<diagnosis const>(std::move(diagnosed));
  auto const& d = *kept;
  output::result_set set;
  set.time_origin_ns = time_origin(d);
  set.time_origin_name = "the first GPU operation";
  // Text and HTML: verdicts, (charts,) findings, gaps, then the measurements; JSON and CSV: the
  // lists, each under its name.
  for (auto* make : {verdicts_text,
                     diagnose_timeline,
                     diagnose_gap_time,
                     diagnose_gap_histogram,
                     diagnose_step_times,
                     diagnose_findings,
                     gaps_text,
                     verdicts,
                     gaps,
                     periodic,
                     long_tail,
                     long_tail_names,
                     bursts,
                     sync,
                     memcpy_table,
                     small_copies,
                     ranks,
                     stragglers,
                     diagnose_late_arrivals,
                     diagnose_memory,
                     diagnose_memory_steps,
                     diagnose_memory_timeline,
                     totals})
    set.tables.push_back(make(d));
  for (auto& t : set.tables)
    if (t.generate)
      t.generate = [kept, rows = std::move(t.generate)](std::size_t i) { return rows(i); };
  return set;
}

}  // namespace tracesweep
