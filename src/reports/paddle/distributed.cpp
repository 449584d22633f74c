// SPDX-License-Identifier: Apache-2.0
// Distributed summary: per rank, communication = |∪ communication|, computation = |∪ computation|,
// overlap = |communication ∩ computation| (unions and the intersection by the backend); across
// ranks, exact order statistics by the backend's segmented statistics (mean step times, not whole
// ns, by a plain sort of the per-rank means).
#include <tracesweep/reports/paddle/distributed.hpp>

#include <algorithm>
#include <optional>

#include <tracesweep/stream_lanes.hpp>
#include <tracesweep/uninitialized_vector.hpp>

#include "reports/paddle/paddle_comm.hpp"

namespace tracesweep {

namespace {

/// Rows of a union by rank, listed lane by lane (a lane: a device's stream, or a rank's host
/// thread), in which a profiler's rows come in start order: the union merges them.
class rows_by_rank {
 public:
  explicit rows_by_rank(trace_model const& model)
      : _model(model), _device(model.device_group()), _devices(model.devices().size()) {}
  void reserve(std::size_t n) { _rows.reserve(n), _run.reserve(n); }
  void add(std::size_t i) {
    auto const& t = _model.table();
    auto const lane_group = _device[i] != no_device
                                ? _device[i]
                                : static_cast<group_id>(_devices + _model.rank_index(t.rank[i]));
    _rows.push_back(i), _run.push_back(_lanes.run(lane_group, t.stream[i]));
  }
  /// The rows listed by lane, each with its rank index.
  [[nodiscard]] rows_in_runs listed() const {
    auto const lane_groups = _devices + _model.ranks().size();
    std::vector<group_id> rank_of_run(lane_groups * stream_lanes::per_group);
    for (std::size_t r = 0; r < rank_of_run.size(); ++r) {
      auto const g = r / stream_lanes::per_group;
      rank_of_run[r] = static_cast<group_id>(
          g < _devices ? _model.rank_index(_model.devices()[g].rank) : g - _devices);
    }
    return list_by_run(_rows, _run, rank_of_run, _model.table().start_ns);
  }

 private:
  trace_model const& _model;
  std::span<group_id const> _device;
  std::size_t _devices;
  stream_lanes _lanes;
  std::vector<std::size_t> _rows;
  std::vector<group_id> _run;
};

/// Per rank index: |∪ communication|, |∪ computation| and their intersection.
struct rank_split {
  std::vector<std::int64_t> communication, computation, overlap;
};

/// The kernels (not Paddle's: those are in `split`) whose rank index is in [lo, hi), and the
/// split's rows of those ranks, as communication or computation.
void add_rank_rows(trace_model const& model, std::span<tables::comm_split const> split,
                   std::size_t lo, std::size_t hi, rows_by_rank& comm, rows_by_rank& comp) {
  auto const& table = model.table();
  for (auto r = lo; r < hi; ++r) {
    for (auto i : split[r].cpu_comm) comm.add(i);
    for (auto i : split[r].gpu_comm) comm.add(i);
    for (auto i : split[r].compute) comp.add(i);
  }
  auto const communication = model.communication_names();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table.kind[i] != event_kind::kernel || model.row_producer(i) == producer::paddle) continue;
    if (auto const r = model.rank_index(table.rank[i]); r < lo || r >= hi) continue;
    (names_communication(communication, table.name[i]) ? comm : comp).add(i);
  }
}

/// The unions and their intersection by the backend, ranks taken in batches (rows_per_union_batch).
rank_split split_by_rank_batches(trace_model const& model, backend& be,
                                 std::span<tables::comm_split const> split) {
  auto const& table = model.table();
  auto const nr = model.ranks().size();
  std::vector<std::size_t> rows_of(nr + 1, 0);  // rows add_rank_rows takes per rank index
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table.kind[i] == event_kind::kernel && model.row_producer(i) != producer::paddle)
      ++rows_of[model.rank_index(table.rank[i])];
  for (std::size_t r = 0; r < nr; ++r)
    rows_of[r] += split[r].cpu_comm.size() + split[r].gpu_comm.size() + split[r].compute.size();
  rank_split out{std::vector<std::int64_t>(nr, 0), std::vector<std::int64_t>(nr, 0),
                 std::vector<std::int64_t>(nr, 0)};
  for_each_union_batch(
      std::span(rows_of).first(nr), [&](std::size_t lo, std::size_t hi, std::size_t taken) {
        rows_by_rank comm_rows(model), comp_rows(model);
        comp_rows.reserve(taken);  // nearly every kernel is computation: no regrowth copies
        add_rank_rows(model, split, lo, hi, comm_rows, comp_rows);
        auto const union_of = [&](rows_by_rank const& rows) {
          auto const listed = rows.listed();
          return be.union_of_rows({table.start_ns, table.end_ns, listed.rows, listed.group});
        };
        auto const comm = union_of(comm_rows);
        auto const comp = union_of(comp_rows);
        auto const comm_ns = busy_per_group(comm, nr);
        auto const comp_ns = busy_per_group(comp, nr);
        auto const overlap_ns = be.intersection_by_group(comm, comp, nr);
        for (auto r = lo; r < hi; ++r)
          out.communication[r] = comm_ns[r], out.computation[r] = comp_ns[r],
          out.overlap[r] = overlap_ns[r];
      });
  return out;
}

/// The same, where no input is Paddle's, as one union of the kernels in groups (rank index ×
/// 2 + 1 for computation), each kernel in its group as it comes: no list of rows; nullopt when a
/// group's kernels do not come in start order (the lanes' listing merges them then).
std::optional<rank_split> split_in_row_order(trace_model const& model, backend& be) {
  auto const& table = model.table();
  auto const nr = model.ranks().size();
  auto const communication = model.communication_names();
  uninitialized_vector<group_id> group(table.size());
  start_order order(2 * nr);
  for (std::size_t i = 0; i < table.size(); ++i) {
    group[i] = row_groups::no_group;
    if (table.kind[i] != event_kind::kernel) continue;
    auto const g =
        static_cast<group_id>(2 * model.rank_index(table.rank[i]) +
                              (names_communication(communication, table.name[i]) ? 0 : 1));
    if (!order.add(g, table.start_ns[i])) return std::nullopt;
    group[i] = g;
  }
  auto const both = be.union_of_row_groups({table.start_ns, table.end_ns, group, 2 * nr});
  auto const comm = union_class(both, 2, 0), comp = union_class(both, 2, 1);
  return rank_split{busy_per_group(comm, nr), busy_per_group(comp, nr),
                    be.intersection_by_group(comm, comp, nr)};
}

}  // namespace

distributed_summary compute_distributed(job_session const& session) {
  auto const& model = session.model();
  auto& be = session.primitives();
  auto const& table = model.table();
  auto const nr = model.ranks().size();
  auto const split = tables::paddle_comm_split(model);

  std::vector<std::int64_t> step_sum(nr, 0), step_count(nr, 0);
  for (std::size_t r = 0; r < nr; ++r)
    for (auto i : model.steps(r))
      step_sum[r] += table.end_ns[i] - table.start_ns[i], ++step_count[r];
  auto split_ns = model.has_paddle_input() ? std::nullopt : split_in_row_order(model, be);
  if (!split_ns) split_ns = split_by_rank_batches(model, be, split);
  auto const& [comm_ns, comp_ns, overlap_ns] = *split_ns;

  distributed_summary out;
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> values;
  for (std::size_t r = 0; r < nr; ++r) {
    auto const denom = session.rank_denominator(r);
    rank_distributed d;
    d.rank = model.ranks()[r];
    d.total_ns = denom.total_ns;
    d.communication_ns = comm_ns[r];
    d.computation_ns = comp_ns[r];
    d.overlap_ns = overlap_ns[r];
    d.steps = step_count[r];
    d.mean_step_ns = step_count[r]
                         ? static_cast<double>(step_sum[r]) / static_cast<double>(step_count[r])
                         : static_cast<double>(denom.total_ns);
    if (out.slowest_rank < 0 ||
        d.mean_step_ns > out.ranks[model.rank_index(out.slowest_rank)].mean_step_ns)
      out.slowest_rank = d.rank;
    out.ranks.push_back(d);
    std::int64_t const v[3] = {d.communication_ns, d.computation_ns, d.overlap_ns};
    for (std::uint32_t k = 0; k < 3; ++k) keys.push_back(k), values.push_back(v[k]);
  }
  static constexpr char const* metric[3] = {"communication", "computation", "overlap"};
  for (auto const& s : be.segmented_stats(keys, values, {})) {
    auto const d = derive_stats(s, {});
    out.across.push_back(
        {metric[s.key], static_cast<double>(s.min), d.median, static_cast<double>(s.max)});
  }
  // Mean step times are not whole nanoseconds (sum / count): their order statistics are taken
  // on the means themselves, not on rounded integers (one value per rank).
  if (!out.ranks.empty()) {
    std::vector<double> means;
    for (auto const& d : out.ranks) means.push_back(d.mean_step_ns);
    std::sort(means.begin(), means.end());
    auto const n = means.size();
    out.across.push_back(
        {"mean_step", means.front(), (means[(n - 1) / 2] + means[n / 2]) / 2, means.back()});
  }
  return out;
}

}  // namespace tracesweep
