// SPDX-License-Identifier: Apache-2.0
// The ranks the others wait for at collectives as a result table: every view; at each rank's
// costliest late arrival, its host rows meanwhile and what it spent longer in than the others, in
// JSON only.
#include <tracesweep/analysis/diagnose.hpp>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep {

namespace {

using output::cell, output::result_table;
using enum output::value_type;

void add_ms(result_table& t, std::string name, std::string label) {
  auto& c = t.add(std::move(name), integer, "ns", std::move(label));
  c.text_unit = "ms";
  c.decimals = 3;
}

/// The host names the late rank spent longer in, as a nested table.
cell behind_cell(std::vector<host_excess> const& behind) {
  result_table t;
  t.add("name", string);
  t.add("late_ns", integer, "ns");
  t.add("others_ns", integer, "ns");
  t.add("excess_ns", integer, "ns");
  for (auto const& b : behind) t.add_row({b.name, b.late_ns, b.others_ns, b.excess_ns()});
  return output::nest(std::move(t));
}

}  // namespace

result_table diagnose_late_arrivals(diagnosis const& d) {
  using diagnose_detail::events_cell;
  constexpr unsigned data_views = output::json | output::flat;
  auto t = diagnose_detail::diagnose_table("late_arrivals", "Ranks the others wait for",
                                           data_views | output::text | output::html);
  t.add("rank", integer);
  t.add("last_arrivals", integer, "", "last at");
  t.add("collectives", integer);
  add_ms(t, "wait_caused_ns", "wait caused (ms)");
  // Its costliest late arrival.
  t.add("input", integer).views = data_views;
  t.add("device", integer);
  auto& name = t.add("name", string, "", "costliest at");
  name.symbol = true;
  name.elide = true;
  t.add("first_arrival_ns", integer, "ns").views = data_views;
  t.add("arrival_ns", integer, "ns").views = data_views;
  add_ms(t, "worst_wait_caused_ns", "its wait caused (ms)");
  t.add("launched_by", string, "", "launched by");
  t.add("host", nested).views = output::json;
  t.add("behind", nested).views = output::json;
  for (auto const& l : d.late_arrivals) {
    std::vector<cell> c{std::int64_t{l.rank},
                        l.last_arrivals,
                        l.collectives,
                        l.wait_caused_ns,
                        std::int64_t{l.where.input},
                        std::int64_t{l.where.device},
                        l.name,
                        l.first_arrival_ns,
                        l.arrival_ns,
                        l.worst_wait_caused_ns,
                        l.launched_by.empty() ? cell() : cell(l.launched_by),
                        events_cell(l.host),
                        behind_cell(l.behind)};
    t.add_row(std::move(c));
  }
  return t;
}

}  // namespace tracesweep
