// SPDX-License-Identifier: Apache-2.0
// Overview Summary (Paddle §1.6): per rank and type, host time = |∪ over threads|, device time =
// |∪ over devices and streams| (unions by the backend); stage rows come from the model summary
// (outermost events, durations added) and Paddle's Communication rows from its distributed split.
#include <tracesweep/reports/paddle/overview.hpp>

#include <tracesweep/reports/paddle/model_summary.hpp>
#include <tracesweep/stream_lanes.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "reports/paddle/model_items.hpp"
#include "reports/paddle/paddle_comm.hpp"

namespace tracesweep {

namespace {

/// An nsys row's type as Nsight Systems' own reports name it (its category is the export's
/// table name, CUPTI_ACTIVITY_KIND_…); "" for a kind nsys rows do not have.
std::string_view nsys_label(event_kind k) {
  switch (k) {
    case event_kind::kernel:
      return "Kernel";
    case event_kind::memcpy:
      return "Memcpy";
    case event_kind::memset:
      return "Memset";
    case event_kind::synchronization:
      return "Synchronization";
    case event_kind::api_call:
      return "CUDA API";
    case event_kind::user_range:
      return "NVTX";
    case event_kind::os_call:
      return "OS runtime";
    default:
      return "";
  }
}

/// Type label of a row: the category, or the step / stage the name gave a Kineto row, or an nsys
/// row's activity kind by its usual name; "" for Kineto's `Trace` span (the profiler's own
/// "PyTorch Profiler (0)" event, no event type: Paddle's table has none), which is left out.
std::string type_label(trace_model const& model, std::size_t i) {
  auto const& t = model.table();
  auto const cat = std::string(t.strings().at(t.category[i]));
  if (model.row_producer(i) == producer::paddle) return cat;
  if (model.row_producer(i) == producer::kineto && t.kind[i] == event_kind::other && cat == "Trace")
    return {};
  if (model.row_producer(i) == producer::nsys && !nsys_label(t.kind[i]).empty())
    return std::string(nsys_label(t.kind[i]));
  switch (t.kind[i]) {
    case event_kind::profiler_step:
    case event_kind::data_loader:
    case event_kind::optimizer:
      return tables::kineto_item_names[tables::slot_of(t.kind[i])];
    default:
      return cat;
  }
}

/// Whether stage row `i`'s type label is the model item of its kind on its rank: a Paddle row
/// whose category is the stage itself, or a Kineto row (its label is Kineto's item name) on a
/// rank whose items carry Kineto's names.
bool labelled_as_item(trace_model const& model, std::size_t i) {
  auto const& t = model.table();
  if (model.row_producer(i) == producer::paddle) return t.role[i].family() == category_role::phase;
  return (t.kind[i] == event_kind::data_loader || t.kind[i] == event_kind::optimizer) &&
         !model.rank_has_producer(t.rank[i], producer::paddle);
}

/// Device rows: kernels, memcpy, memset, the rest, then Paddle's Communication row.
int device_order(event_kind k) {
  switch (k) {
    case event_kind::kernel:
      return 0;
    case event_kind::memcpy:
      return 1;
    case event_kind::memset:
      return 2;
    default:
      return 3;
  }
}
constexpr int communication_order = 4;

}  // namespace

namespace {

/// The kept rows grouped by (rank index, device side, type label): each group's calls, first and
/// last rows and union length (backend unions, a batch of groups each).
struct label_groups {
  std::map<std::tuple<std::size_t, bool, std::string>, group_id> ids;
  std::vector<std::int64_t> calls, busy;
  std::vector<std::size_t> first_row, last_row;
  start_order order;  ///< whether each group's rows come in start order
};

/// Type labels by what decides them (producer, kind, category): each made once, not per row.
class label_cache {
 public:
  static constexpr std::uint32_t none = ~std::uint32_t{0};

  /// Row i's label (its producer `p`), an id for label() (none: the row has no type).
  std::uint32_t of(trace_model const& model, std::size_t i, producer p) {
    auto const& t = model.table();
    auto const key = std::tuple(p, t.kind[i], t.category[i]);
    if (_last && _last->first == key) return _last->second;
    auto it = _ids.find(key);
    if (it == _ids.end()) {
      auto label = type_label(model, i);
      std::uint32_t id = none;
      if (!label.empty()) {
        auto const at = std::find(_labels.begin(), _labels.end(), label);
        id = static_cast<std::uint32_t>(at - _labels.begin());
        if (at == _labels.end()) _labels.push_back(std::move(label));
      }
      it = _ids.emplace(key, id).first;
    }
    _last = &*it;
    return it->second;
  }
  [[nodiscard]] std::string const& label(std::uint32_t id) const { return _labels[id]; }

 private:
  using key = std::tuple<producer, event_kind, string_id>;
  std::map<key, std::uint32_t> _ids;
  std::pair<key const, std::uint32_t> const* _last = nullptr;
  std::vector<std::string> _labels;
};

/// The group of each (label, rank index, side), numbered as first seen: a slot per rank and side
/// of each label, so a row finds its group by two indexes.
class label_group_ids {
 public:
  explicit label_group_ids(std::size_t ranks) : _ranks(ranks) {}
  static constexpr group_id unseen = ~group_id{0};
  group_id& of(std::uint32_t label, std::size_t rank_index, bool device) {
    if (label >= _slots.size()) _slots.resize(label + 1);
    auto& slots = _slots[label];
    if (slots.empty()) slots.assign(2 * _ranks, unseen);
    return slots[2 * rank_index + (device ? 1 : 0)];
  }

 private:
  std::size_t _ranks;
  std::vector<std::vector<group_id>> _slots;
};

/// Each kept row's group (none: the row has no type), counting the groups' calls and checking
/// whether each group's rows come in start order.
std::vector<group_id> label_group_of_rows(trace_model const& model, label_groups& out) {
  auto const& table = model.table();
  std::vector<group_id> of(table.size(), label_group_ids::unseen);
  label_cache labels;
  label_group_ids ids(model.ranks().size());
  for (std::size_t k = 0; k < table.inputs().size(); ++k) {
    auto const p = model.input_producer(static_cast<std::int32_t>(k));
    auto const [first, end] = table.input_rows(k);
    for (auto i = first; i < end; ++i) {
      if (!model.kept(i)) continue;
      auto const label = labels.of(model, i, p);
      if (label == label_cache::none) continue;
      bool const dev = table.device[i] >= 0;
      auto const r = model.rank_index(table.rank[i]);
      auto& id = ids.of(label, r, dev);
      if (id == label_group_ids::unseen) {
        id = static_cast<group_id>(out.calls.size());
        out.calls.push_back(0), out.first_row.push_back(i), out.last_row.push_back(i);
        out.ids.emplace(std::tuple(r, dev, labels.label(label)), id);
        out.order.add_groups(out.calls.size());
      }
      ++out.calls[id], out.last_row[id] = i;
      out.order.add(id, table.start_ns[i]);
      of[i] = id;
    }
  }
  return of;
}

label_groups group_by_label(trace_model const& model, backend& be) {
  auto const& table = model.table();
  label_groups out;
  auto const of = label_group_of_rows(model, out);
  auto const groups = out.calls.size();
  static_assert(label_group_ids::unseen == row_groups::no_group);
  if (out.order.holds()) {  // the groups' rows as they come: no list of rows
    out.busy =
        busy_per_group(be.union_of_row_groups({table.start_ns, table.end_ns, of, groups}), groups);
    return out;
  }
  out.busy.assign(groups, 0);
  // Batches of whole groups in id order; each batch's rows are listed by (group, stream or
  // thread): rows of one stream come in start order, so the union merges them, not sorts.
  auto const run_group = groups_of_runs(groups);
  stream_lanes lanes(groups);
  std::vector<std::size_t> rows;
  std::vector<group_id> run;
  for_each_union_batch(out.calls, [&](std::size_t lo, std::size_t hi, std::size_t taken) {
    std::size_t first = table.size(), last = 0;
    for (auto g = lo; g < hi; ++g)
      first = std::min(first, out.first_row[g]), last = std::max(last, out.last_row[g]);
    rows.clear(), run.clear();
    rows.reserve(taken), run.reserve(taken);
    for (auto i = first; i <= last; ++i)
      if (of[i] >= lo && of[i] < hi)
        rows.push_back(i), run.push_back(lanes.run(of[i], table.stream[i]));
    auto const listed = list_by_run(rows, run, run_group, table.start_ns);
    auto const busy = busy_per_group(
        be.union_of_rows({table.start_ns, table.end_ns, listed.rows, listed.group}), groups);
    for (auto g = lo; g < hi; ++g) out.busy[g] = busy[g];
  });
  return out;
}

/// Paddle's Communication rows: the distributed split's unions per (rank, side); calls = its
/// distinct ranges.
void add_communication_rows(trace_model const& model, backend& be, std::vector<rank_overview>& out,
                            std::vector<std::map<std::string, int>>& order) {
  auto const& table = model.table();
  auto const nr = out.size();
  auto const split = tables::paddle_comm_split(model);
  std::vector<std::size_t> rows;
  std::vector<group_id> cg;
  std::vector<std::set<std::pair<std::int64_t, std::int64_t>>> distinct(2 * nr);
  for (std::size_t r = 0; r < nr; ++r) {
    for (int side = 0; side < 2; ++side)
      for (auto i : side ? split[r].gpu_comm : split[r].cpu_comm) {
        rows.push_back(i), cg.push_back(static_cast<group_id>(2 * r + side));
        distinct[2 * r + side].insert({table.start_ns[i], table.end_ns[i]});
      }
  }
  auto const comm =
      busy_per_group(be.union_of_rows({table.start_ns, table.end_ns, rows, cg}), 2 * nr);
  for (std::size_t r = 0; r < nr; ++r)
    for (int side = 0; side < 2; ++side) {
      if (distinct[2 * r + side].empty()) continue;
      auto& rows = out[r].rows;
      auto it = std::find_if(rows.begin(), rows.end(), [&](overview_row const& x) {
        return x.type == "Communication" && x.device == (side == 1);
      });
      if (it == rows.end()) it = rows.insert(rows.end(), overview_row{"Communication", side == 1});
      if (side == 1) order[r]["Communication"] = communication_order;
      it->calls = static_cast<std::int64_t>(distinct[2 * r + side].size());
      it->time_ns = comm[2 * r + side];
      it->rule = "union";
    }
}

/// Ratios over the rank's denominator; host rows by time descending, device rows in their order.
void rank_rows(rank_overview& ro, std::map<std::string, int> const& order) {
  for (auto& row : ro.rows)
    row.ratio =
        ro.total_ns > 0 ? static_cast<double>(row.time_ns) / static_cast<double>(ro.total_ns) : 0;
  std::stable_sort(ro.rows.begin(), ro.rows.end(),
                   [&](overview_row const& a, overview_row const& b) {
                     if (a.device != b.device) return !a.device;
                     if (!a.device)
                       return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.type < b.type;
                     auto const oa = order.at(a.type), ob = order.at(b.type);
                     return oa != ob ? oa < ob : a.type < b.type;
                   });
}

}  // namespace

std::vector<rank_overview> compute_overview(job_session const& session) {
  auto const& model = session.model();
  auto& be = session.primitives();
  auto const& table = model.table();
  auto const nr = model.ranks().size();
  auto const groups = group_by_label(model, be);

  std::vector<rank_overview> out(nr);
  std::vector<std::map<std::string, int>> order(nr);  // per rank: device row type → order
  for (std::size_t r = 0; r < nr; ++r) {
    auto const d = session.rank_denominator(r);
    out[r].rank = model.ranks()[r];
    out[r].total_ns = d.total_ns;
    out[r].total_from = d.from_steps ? "steps" : "span";
  }
  // Stage rows come from the model summary (outermost events, durations added).
  auto const items = compute_model_summary(session);
  for (auto const& [key, id] : groups.ids) {
    auto const& [r, dev, type] = key;
    auto const i = groups.first_row[id];
    overview_row row{type, dev, groups.calls[id], groups.busy[id], 0, "union"};
    if (!dev && is_stage(table.kind[i]) && labelled_as_item(model, i)) {
      std::string_view const name =
          tables::item_name(model, out[r].rank, tables::slot_of(table.kind[i]));
      for (auto const& m : items[r].items)
        if (m.name == name) row.calls = m.calls, row.time_ns = m.cpu_total_ns, row.rule = "sum";
    }
    if (dev) order[r][type] = device_order(table.kind[i]);
    out[r].rows.push_back(std::move(row));
  }
  add_communication_rows(model, be, out, order);
  for (std::size_t r = 0; r < nr; ++r) rank_rows(out[r], order[r]);
  return out;
}

}  // namespace tracesweep
