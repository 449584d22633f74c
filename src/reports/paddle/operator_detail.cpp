// SPDX-License-Identifier: Apache-2.0
// Paddle's op_detail (see operator_detail.hpp): inner items and device rows keyed by (rank,
// operator name, inner item name, device row name), then shares of the operator table's totals.
#include <tracesweep/reports/paddle/operator_detail.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include <tracesweep/exact_stats.hpp>
#include <tracesweep/reports/paddle/operator_table.hpp>

#include "reports/host_tree.hpp"

namespace tracesweep {

namespace {

/// (rank index, operator name, inner item name or -1, device row name or -1).
using detail_key = std::tuple<std::size_t, string_id, std::int64_t, std::int64_t>;

struct detail_sums {
  std::int64_t calls = 0, cpu_ns = 0, gpu_ns = 0;
};

/// Per row of `order`: the row on its path up whose parent is its nearest operator (itself when
/// its parent is one), or -1.
std::vector<std::int64_t> child_of_operator(trace_model const& model,
                                            std::vector<std::size_t> const& order) {
  std::vector<std::int64_t> below(model.table().size(), -1);
  for (auto const row : order) {
    auto const p = model.parent(row);
    if (p < 0) continue;
    auto const parent = static_cast<std::size_t>(p);
    below[row] = is_operator_row(model, parent) ? static_cast<std::int64_t>(row) : below[parent];
  }
  return below;
}

std::map<detail_key, detail_sums> detail_sums_of(trace_model const& model) {
  auto const& t = model.table();
  auto const order = tables::host_rows_parents_first(t);
  auto const is_op = [&](std::size_t i) { return is_operator_row(model, i); };
  auto const op_above = tables::nearest_node_above(model, order, is_op);
  auto const below = child_of_operator(model, order);
  std::map<detail_key, detail_sums> sums;
  auto add = [](std::int64_t& to, std::int64_t x) { to = checked_add(to, x, "an item's time"); };
  for (auto const row : order) {  // inner items
    auto const p = model.parent(row);
    if (p < 0 || is_op(row) || t.kind[row] == event_kind::api_call) continue;
    auto const op = static_cast<std::size_t>(p);
    if (!is_op(op)) continue;
    auto& s = sums[{model.rank_index(t.rank[op]), t.name[op], t.name[row], -1}];
    ++s.calls;
    add(s.cpu_ns, t.end_ns[row] - t.start_ns[row]);
  }
  for (std::size_t i = 0; i < t.size(); ++i) {  // device rows
    auto const call = model.launcher(i);
    if (!is_device_activity(t.kind[i]) || call < 0) continue;
    auto const c = static_cast<std::size_t>(call);
    if (op_above[c] < 0) continue;
    auto const op = static_cast<std::size_t>(op_above[c]);
    auto const via = static_cast<std::size_t>(below[c]);
    auto const inner = via == c ? std::int64_t{-1} : std::int64_t{t.name[via]};
    auto const rank = model.rank_index(t.rank[op]);
    auto& s = sums[{rank, t.name[op], inner, t.name[i]}];
    ++s.calls;
    add(s.gpu_ns, t.end_ns[i] - t.start_ns[i]);
    if (inner >= 0) add(sums[{rank, t.name[op], inner, -1}].gpu_ns, t.end_ns[i] - t.start_ns[i]);
  }
  return sums;
}

double share(std::int64_t x, std::int64_t total) {
  return total > 0 ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
}

}  // namespace

std::vector<rank_operator_detail> compute_operator_detail(trace_model const& model, backend& be) {
  auto const& pool = model.table().strings();
  auto const sums = detail_sums_of(model);
  auto const ops = compute_operator_table(model, be);
  std::vector<std::map<std::string, operator_row const*>> op_rows(ops.size());
  for (std::size_t r = 0; r < ops.size(); ++r)
    for (auto const& row : ops[r].rows) op_rows[r][row.name] = &row;
  std::vector<rank_operator_detail> out(ops.size());
  for (std::size_t r = 0; r < ops.size(); ++r) out[r].rank = ops[r].rank;
  auto name = [&](std::int64_t id) {
    return id < 0 ? std::string() : std::string(pool.at(static_cast<string_id>(id)));
  };
  for (auto const& [key, s] : sums) {
    auto const& [rank, op, inner, kernel] = key;
    operator_detail_row d;
    d.op = std::string(pool.at(op)), d.inner = name(inner), d.kernel = name(kernel);
    d.calls = s.calls, d.cpu_total_ns = s.cpu_ns, d.gpu_total_ns = s.gpu_ns;
    auto const& o = *op_rows[rank].at(d.op);
    d.cpu_ratio = share(s.cpu_ns, o.host_total_ns);
    bool const under_inner = inner >= 0 && kernel >= 0;
    d.gpu_ratio =
        share(s.gpu_ns, under_inner ? sums.at({rank, op, inner, -1}).gpu_ns : o.device_total_ns);
    out[rank].rows.push_back(std::move(d));
  }
  for (auto& r : out)
    std::sort(r.rows.begin(), r.rows.end(), [](auto const& a, auto const& b) {
      return std::tie(a.op, a.inner, a.kernel) < std::tie(b.op, b.inner, b.kernel);
    });
  return out;
}

}  // namespace tracesweep
