// SPDX-License-Identifier: Apache-2.0
// The operator table (see operator_table.hpp): per operator instance its host self time and the
// device time launched in its subtree and by itself, from one bottom-up pass over the host rows in
// nesting order; then instances grouped by (rank, name).
#include <tracesweep/reports/paddle/operator_table.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <utility>

#include <tracesweep/exact_stats.hpp>

#include "reports/host_tree.hpp"

namespace tracesweep {

namespace {

constexpr std::array<std::string_view, 12> sort_names = {
    "name",     "calls",        "host_total",  "host_self",  "host_avg",   "host_max",
    "host_min", "device_total", "device_self", "device_avg", "device_max", "device_min"};

/// The sort value of `r` for a numeric key, larger first (min keys negated: ascending).
double sort_value(operator_row const& r, operator_sort key) {
  auto const d = [](std::int64_t v) { return static_cast<double>(v); };
  switch (key) {
    case operator_sort::calls:
      return d(r.calls);
    case operator_sort::host_total:
      return d(r.host_total_ns);
    case operator_sort::host_self:
      return d(r.host_self_ns);
    case operator_sort::host_avg:
      return r.host_avg_ns;
    case operator_sort::host_max:
      return d(r.host_max_ns);
    case operator_sort::host_min:
      return -d(r.host_min_ns);
    case operator_sort::device_total:
      return d(r.device_total_ns);
    case operator_sort::device_self:
      return d(r.device_self_ns);
    case operator_sort::device_avg:
      return r.device_avg_ns;
    case operator_sort::device_max:
      return d(r.device_max_ns);
    case operator_sort::device_min:
      return -d(r.device_min_ns);
    case operator_sort::name:
      break;
  }
  return 0;
}

/// One operator instance's values.
struct instance {
  std::int64_t host_ns = 0, host_self_ns = 0, device_ns = 0, device_self_ns = 0;
};

/// Per row: how much of it its direct children cover (their union, each clipped to it). Children
/// come by start in nesting order, so one running end per parent suffices.
std::vector<std::int64_t> covered_by_children(trace_model const& model,
                                              std::vector<std::size_t> const& order) {
  auto const& t = model.table();
  std::vector<std::int64_t> covered(t.size(), 0);
  std::vector<std::int64_t> run_end(t.size(), INT64_MIN);
  for (auto const i : order) {
    auto const p = model.parent(i);
    if (p < 0) continue;
    auto const parent = static_cast<std::size_t>(p);
    auto const from = std::max(t.start_ns[i], run_end[parent]);
    auto const to = std::min(t.end_ns[i], t.end_ns[parent]);
    if (to <= from) continue;
    covered[parent] += to - from;
    run_end[parent] = to;
  }
  return covered;
}

/// Per row: the values of every operator row (others stay zero).
std::vector<instance> operator_instances(trace_model const& model) {
  auto const& t = model.table();
  auto const order = tables::host_rows_parents_first(t);
  auto const launched = tables::device_time_launched(model);
  auto const is_op = [&](std::size_t i) { return is_operator_row(model, i); };
  auto const op_above = tables::nearest_node_above(model, order, is_op);
  auto const covered = covered_by_children(model, order);
  std::vector<instance> v(t.size());
  auto subtree_device = launched;  // + what the rows below launched, filled bottom-up
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // children before parents
    auto const i = *it;
    if (launched[i] != 0 && op_above[i] >= 0) {
      auto& self = v[static_cast<std::size_t>(op_above[i])].device_self_ns;
      self = checked_add(self, launched[i], "the device self time of an operator");
    }
    if (is_op(i)) {
      v[i].host_ns = t.end_ns[i] - t.start_ns[i];
      v[i].host_self_ns = v[i].host_ns - covered[i];
      v[i].device_ns = subtree_device[i];
    }
    if (auto const p = model.parent(i); p >= 0)
      subtree_device[static_cast<std::size_t>(p)] =
          checked_add(subtree_device[static_cast<std::size_t>(p)], subtree_device[i],
                      "the device time of a subtree");
  }
  return v;
}

/// Σ, max and min of one side's per-instance values.
struct side_sums {
  std::int64_t total = 0, self = 0, max = 0, min = 0;
  void add(std::int64_t value, std::int64_t self_value, bool first) {
    total = checked_add(total, value, "the time of an operator");
    self = checked_add(self, self_value, "the self time of an operator");
    max = first ? value : std::max(max, value);
    min = first ? value : std::min(min, value);
  }
};

struct accumulator {
  std::int64_t calls = 0;
  side_sums host, device;
};

operator_row to_row(std::string name, accumulator const& a) {
  operator_row r;
  r.name = std::move(name);
  r.calls = a.calls;
  r.host_total_ns = a.host.total, r.host_self_ns = a.host.self;
  r.host_max_ns = a.host.max, r.host_min_ns = a.host.min;
  r.device_total_ns = a.device.total, r.device_self_ns = a.device.self;
  r.device_max_ns = a.device.max, r.device_min_ns = a.device.min;
  auto const calls = static_cast<double>(a.calls);
  r.host_avg_ns = static_cast<double>(a.host.total) / calls;
  r.device_avg_ns = static_cast<double>(a.device.total) / calls;
  return r;
}

/// Each row's share of the rank's Σ host totals and Σ device totals.
void set_ratios(std::vector<operator_row>& rows) {
  std::int64_t host = 0, device = 0;
  for (auto const& r : rows) {
    host = checked_add(host, r.host_total_ns, "the operator time of a rank");
    device = checked_add(device, r.device_total_ns, "the operator device time of a rank");
  }
  auto share = [](std::int64_t x, std::int64_t total) {
    return total > 0 ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
  };
  for (auto& r : rows)
    r.host_ratio = share(r.host_total_ns, host), r.device_ratio = share(r.device_total_ns, device);
}

}  // namespace

std::span<std::string_view const> operator_sort_names() noexcept {
  return sort_names;
}

std::optional<operator_sort> parse_operator_sort(std::string_view name) noexcept {
  for (std::size_t k = 0; k < sort_names.size(); ++k)
    if (sort_names[k] == name) return static_cast<operator_sort>(k);
  return std::nullopt;
}

void sort_operator_rows(std::vector<operator_row>& rows, operator_sort key) {
  std::stable_sort(rows.begin(), rows.end(), [key](auto const& a, auto const& b) {
    if (key != operator_sort::name) {
      auto const x = sort_value(a, key), y = sort_value(b, key);
      if (x != y) return x > y;
    }
    return a.name < b.name;
  });
}

bool is_operator_row(trace_model const& model, std::size_t row) noexcept {
  auto const& t = model.table();
  if (t.device[row] >= 0) return false;
  if (t.kind[row] == event_kind::cpu_op) return t.role[row].family() == category_role::op;
  return is_host_range(t, row) && model.row_producer(row) == producer::nsys;
}

std::vector<rank_operator_table> compute_operator_table(trace_model const& model, backend&,
                                                        operator_sort key) {
  auto const& t = model.table();
  auto const values = operator_instances(model);
  auto const nr = model.ranks().size();
  std::vector<std::map<string_id, accumulator>> groups(nr);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_operator_row(model, i)) continue;
    auto& a = groups[model.rank_index(t.rank[i])][t.name[i]];
    bool const first = a.calls++ == 0;
    a.host.add(values[i].host_ns, values[i].host_self_ns, first);
    a.device.add(values[i].device_ns, values[i].device_self_ns, first);
  }
  std::vector<rank_operator_table> out(nr);
  for (std::size_t r = 0; r < nr; ++r) {
    out[r].rank = model.ranks()[r];
    out[r].paddle = model.rank_has_producer(out[r].rank, producer::paddle);
    for (auto const& [name, a] : groups[r])
      out[r].rows.push_back(to_row(std::string(t.strings().at(name)), a));
    set_ratios(out[r].rows);
    sort_operator_rows(out[r].rows, key);
  }
  return out;
}

}  // namespace tracesweep
