// SPDX-License-Identifier: Apache-2.0
#include "fleet/finding_details.hpp"

#include <sstream>

#include <tracesweep/output/writer.hpp>

namespace tracesweep::fleet {

namespace {

/// One JSON object built field by field: a one-row table the JSON writer writes as an object.
class detail {
 public:
  detail() {
    _t.name = "detail";
    _t.shape = output::json_shape::object;
    _t.rows.emplace_back();
  }
  detail& add(std::string name, std::int64_t v) {
    return put(name, output::value_type::integer, v);
  }
  detail& add(std::string name, double v) { return put(name, output::value_type::real, v); }
  detail& add(std::string name, std::string v) {
    return put(name, output::value_type::string, std::move(v));
  }
  [[nodiscard]] std::string json() const {
    output::result_set set;
    set.tables.push_back(_t);
    set.json_bare = true;
    std::ostringstream out;
    output::find_writer("json")(set, "", out, {});
    return out.str();
  }

 private:
  detail& put(std::string& name, output::value_type type, output::cell v) {
    _t.add(std::move(name), type);
    _t.rows[0].cells.push_back(std::move(v));
    return *this;
  }
  output::result_table _t;
};

std::string cause(idle_cause c) {
  return std::string(to_string(c));
}

}  // namespace

std::vector<finding_record> finding_rows(diagnosis const& d) {
  std::vector<finding_record> out;
  for (auto const& p : d.periodic_gaps)
    out.push_back({p.where.rank, p.where.device, "periodic_gaps",
                   detail()
                       .add("cause", cause(p.cause))
                       .add("period_ns", p.period_ns)
                       .add("count", p.count)
                       .add("total_ns", p.total_ns)
                       .add("share", p.share)
                       .add("first_start_ns", p.first_start_ns)
                       .json()});
  for (auto const& n : d.long_tail_names)
    out.push_back({-1, -1, "long_tail",
                   detail()
                       .add("name", n.name)
                       .add("launch", n.launch)
                       .add("instances", n.instances)
                       .add("excess_ns", n.excess_ns)
                       .add("median_ns", n.median_ns)
                       .add("worst_ratio", n.worst_ratio)
                       .json()});
  for (auto const& b : d.bursts)
    out.push_back({b.where.rank, b.where.device, "tiny_kernel_burst",
                   detail()
                       .add("start_ns", b.start_ns)
                       .add("end_ns", b.end_ns)
                       .add("kernels", b.kernels)
                       .add("kernel_ns", b.kernel_ns)
                       .add("launched_by", b.launched_by)
                       .json()});
  for (auto const& c : d.small_copies)
    out.push_back({c.where.rank, c.where.device, "small_copies",
                   detail()
                       .add("step", std::int64_t{c.step})
                       .add("step_name", c.step_name)
                       .add("direction", c.direction)
                       .add("copies", c.copies)
                       .add("bytes", c.bytes)
                       .add("total_ns", c.total_ns)
                       .json()});
  for (auto const& s : d.sync)
    out.push_back({s.rank, -1, "sync",
                   detail()
                       .add("thread", s.thread)
                       .add("calls", s.calls)
                       .add("total_ns", s.total_ns)
                       .add("share", s.share)
                       .json()});
  for (auto const& s : d.stragglers)
    out.push_back({s.rank, -1, "straggler",
                   detail()
                       .add("mean_step_ns", s.mean_step_ns)
                       .add("median_rank_step_ns", s.median_rank_step_ns)
                       .add("excess", s.excess)
                       .add("mean_wait_ns", s.mean_wait_ns)
                       .add("work_excess", s.work_excess)
                       .json()});
  for (auto const& l : d.late_arrivals)
    out.push_back({l.rank, l.where.device, "late_arrival",
                   detail()
                       .add("last_arrivals", l.last_arrivals)
                       .add("collectives", l.collectives)
                       .add("wait_caused_ns", l.wait_caused_ns)
                       .add("name", l.name)
                       .add("arrival_ns", l.arrival_ns)
                       .add("worst_wait_caused_ns", l.worst_wait_caused_ns)
                       .json()});
  return out;
}

}  // namespace tracesweep::fleet
