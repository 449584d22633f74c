// SPDX-License-Identifier: Apache-2.0
// The TensorBoard plugin's operator view (see tb_operators.hpp): the plugin's operator tree from
// the model's nesting (nodes = Operator-family host rows), duplicate same-name chains merged
// top-down, statistics filled bottom-up, listed operators grouped by (input, name).
#include <tracesweep/reports/tensorboard/tb_operators.hpp>

#include <map>
#include <string_view>
#include <utility>

#include <tracesweep/exact_stats.hpp>

#include "reports/host_tree.hpp"

namespace tracesweep {

namespace {

/// A node of the plugin's tree: an Operator-family host row (operators and ProfilerStep#N).
bool is_tree_node(event_table const& t, std::size_t i) {
  return t.device[i] < 0 && t.role[i].family() == category_role::op;
}
/// A node of the plugin's type Operator (every node but the steps).
bool is_operator_type(event_table const& t, std::size_t i) {
  return is_tree_node(t, i) && t.kind[i] != event_kind::profiler_step;
}
/// A runtime call as the plugin types them (cuda_runtime / Runtime; driver calls are not).
bool is_runtime(event_table const& t, std::size_t i) {
  return t.kind[i] == event_kind::api_call && t.role[i].family() == category_role::runtime;
}
/// The names the plugin's operator view leaves out.
bool is_listed(std::string_view name) {
  bool const data_loader =
      name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__");
  return !data_loader && !name.starts_with("enumerate(DataPipe)#") &&
         !name.starts_with("Optimizer.") && name != "DataParallel.forward" &&
         name != "DistributedDataParallel.forward";
}

/// The tree: nodes in nesting order (parents first); children by node index; runtime rows.
struct op_tree {
  std::vector<std::size_t> rows;
  std::vector<std::vector<std::size_t>> children;
  std::vector<std::vector<std::size_t>> runtimes;
  std::vector<std::uint8_t> merged;  ///< absorbed into its parent by the duplicate rule
};

op_tree build_tree(trace_model const& model) {
  auto const& t = model.table();
  auto const order = tables::host_rows_parents_first(t);
  auto const above =
      tables::nearest_node_above(model, order, [&](std::size_t i) { return is_tree_node(t, i); });
  op_tree tree;
  std::vector<std::int64_t> index(t.size(), -1);
  for (auto const i : order)
    if (is_tree_node(t, i))
      index[i] = static_cast<std::int64_t>(tree.rows.size()), tree.rows.push_back(i);
  tree.children.resize(tree.rows.size());
  tree.runtimes.resize(tree.rows.size());
  tree.merged.assign(tree.rows.size(), 0);
  for (auto const i : order) {
    if (above[i] < 0) continue;
    auto const parent = static_cast<std::size_t>(index[static_cast<std::size_t>(above[i])]);
    if (is_tree_node(t, i)) tree.children[parent].push_back(static_cast<std::size_t>(index[i]));
    if (is_runtime(t, i)) tree.runtimes[parent].push_back(i);
  }
  return tree;
}

/// An Operator node whose only child is an Operator of the same name takes the child's children
/// and runtime calls (its own calls are dropped, as the plugin does), repeatedly.
void merge_duplicates(event_table const& t, op_tree& tree) {
  for (std::size_t k = 0; k < tree.rows.size(); ++k) {
    if (tree.merged[k] || !is_operator_type(t, tree.rows[k])) continue;
    while (tree.children[k].size() == 1) {
      auto const c = tree.children[k].front();
      if (!is_operator_type(t, tree.rows[c]) || t.name[tree.rows[c]] != t.name[tree.rows[k]]) break;
      tree.children[k] = std::move(tree.children[c]);
      tree.runtimes[k] = std::move(tree.runtimes[c]);
      tree.merged[c] = 1;
    }
  }
}

struct node_values {
  std::int64_t host_self = 0, device_total = 0, device_self = 0;
};

/// The plugin's fill_stats, children before parents.
std::vector<node_values> fill_values(trace_model const& model, op_tree const& tree) {
  auto const& t = model.table();
  auto const launched = tables::device_time_launched(model);
  auto duration = [&](std::size_t row) { return t.end_ns[row] - t.start_ns[row]; };
  std::vector<node_values> v(tree.rows.size());
  for (auto k = tree.rows.size(); k-- > 0;) {
    if (tree.merged[k]) continue;
    auto& x = v[k];
    x.host_self = duration(tree.rows[k]);
    for (auto const c : tree.children[k]) {
      x.host_self -= duration(tree.rows[c]);
      x.device_total = checked_add(x.device_total, v[c].device_total, "an operator's device time");
    }
    for (auto const rt : tree.runtimes[k]) {
      x.host_self -= duration(rt);
      x.device_self = checked_add(x.device_self, launched[rt], "an operator's device time");
    }
    x.device_total = checked_add(x.device_total, x.device_self, "an operator's device time");
  }
  return v;
}

}  // namespace

std::vector<tb_operator_table> compute_tb_operators(trace_model const& model, backend&,
                                                    operator_sort key) {
  auto const& t = model.table();
  auto tree = build_tree(model);
  merge_duplicates(t, tree);
  auto const values = fill_values(model, tree);
  std::vector<std::map<string_id, operator_row>> by_input(t.inputs().size());
  for (std::size_t k = 0; k < tree.rows.size(); ++k) {
    auto const row = tree.rows[k];
    auto const name = t.strings().at(t.name[row]);
    if (tree.merged[k] || !is_operator_type(t, row) || !is_listed(name)) continue;
    auto& r = by_input[static_cast<std::size_t>(t.input_of(row))][t.name[row]];
    r.name = std::string(name);
    r.calls += 1;
    r.host_total_ns = checked_add(r.host_total_ns, t.end_ns[row] - t.start_ns[row], "host time");
    r.host_self_ns = checked_add(r.host_self_ns, values[k].host_self, "host self time");
    r.device_total_ns = checked_add(r.device_total_ns, values[k].device_total, "device time");
    r.device_self_ns = checked_add(r.device_self_ns, values[k].device_self, "device self time");
  }
  std::vector<tb_operator_table> out;
  for (std::size_t in = 0; in < by_input.size(); ++in) {
    auto const& ranks = t.inputs()[in].ranks;
    if (ranks.empty()) continue;  // an input without rows
    tb_operator_table o;
    o.input = static_cast<std::int32_t>(in);
    o.rank = ranks.front();
    for (auto& [name, r] : by_input[in]) o.rows.push_back(std::move(r));
    sort_operator_rows(o.rows, key);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace tracesweep
