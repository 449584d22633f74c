// SPDX-License-Identifier: Apache-2.0
// The summary contract, read from the job session's device activity: unions per device (and per
// device × kind, communication, computation), their intersection, the gap scan over the activity
// union and segmented statistics of kernel durations per name; the exposed communication split
// into wait and transfer where collectives are matched across ranks.
#include <tracesweep/analysis/collectives.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/error.hpp>

#include <algorithm>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "analysis/summary/exposed_communication.hpp"

namespace tracesweep {

activity_needs summary_needs(summary_options const& options) noexcept {
  return {options.min_gap_ns, options.top, false, true};
}

summary compute_summary(trace_model const& model, backend& be, summary_options const& options) {
  return compute_summary(job_session(model, be, summary_needs(options)), options);
}

namespace {

/// The inputs, each with the ranks that have GPU operations: a process that only ran host code
/// appears only when a filter made the reader take host rows.
std::vector<input_info> inputs_with_gpu_ranks(trace_model const& model) {
  auto out = model.table().inputs();
  for (auto& in : out) in.ranks.clear();
  for (auto const& key : model.devices()) {
    auto& ranks = out[static_cast<std::size_t>(key.input)].ranks;
    if (std::find(ranks.begin(), ranks.end(), key.rank) == ranks.end()) ranks.push_back(key.rank);
  }
  for (auto& in : out) std::sort(in.ranks.begin(), in.ranks.end());
  return out;
}

device_summary device_row(device_identity const& key, device_activity_row const& a) {
  device_summary d;
  d.input = key.input;
  d.rank = key.rank;
  d.device = key.device;
  d.window_start_ns = a.window_start;
  d.window_end_ns = a.window_end;
  d.window_ns = a.window_end - a.window_start;
  d.busy_ns = a.busy;
  d.idle_ns = d.window_ns - d.busy_ns;
  d.utilization =
      d.window_ns > 0 ? static_cast<double>(d.busy_ns) / static_cast<double>(d.window_ns) : 0.0;
  d.kernel_ns = a.kernel_busy;
  d.memcpy_ns = a.memcpy_busy;
  d.memset_ns = a.memset_busy;
  d.communication_ns = a.communication;
  d.computation_ns = a.computation;
  d.overlap_ns = a.overlap;
  d.kernel_count = a.kernel_count;
  return d;
}

/// Per-kernel statistics over every input, by exact name, by total time descending.
std::vector<kernel_summary> kernel_rows(event_table const& table,
                                        std::vector<exact_stats> const& stats) {
  int128 grand_total = 0;
  for (auto const& s : stats) grand_total += s.sum;
  std::vector<kernel_summary> out;
  out.reserve(stats.size());
  for (auto const& s : stats) {
    auto const d = derive_stats(s, {});
    kernel_summary k;
    k.name = std::string(table.strings().at(s.key));
    k.calls = static_cast<std::int64_t>(s.count);
    k.total_ns = narrow_sum(s.sum, "the total time of kernel " + k.name);
    k.avg_ns = d.mean;
    k.median_ns = d.median;
    k.min_ns = s.min;
    k.max_ns = s.max;
    k.stddev_ns = d.stddev;
    k.share = grand_total > 0 ? static_cast<double>(s.sum) / static_cast<double>(grand_total) : 0.0;
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end(), [](kernel_summary const& a, kernel_summary const& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.calls != b.calls) return a.calls > b.calls;
    return a.name < b.name;
  });
  return out;
}

}  // namespace

namespace {

struct activity_and_exposed {
  activity_result const& activity;
  std::vector<summary_detail::exposed_split> split;
};

/// The session's device activity and the exposed communication split, after it: the split reads
/// the computation kernels' union the activity kept (the CPU backend's), else builds the part of
/// it that it reads (a backend that does not keep it on the host). The collectives it splits
/// are matched from the model alone, as a task beside the activity in an arena of the backend's
/// host threads (with one, after it on the calling thread).
activity_and_exposed activity_and_split(job_session const& session, activity_needs const& needs) {
  collective_matching matching;
  activity_result const* activity = nullptr;
  tbb::task_arena arena(static_cast<int>(std::max(1u, session.primitives().host_threads())));
  arena.execute([&] {
    tbb::task_group beside;
    beside.run([&] { matching = match_collectives(session.model()); });
    activity = &session.activity(needs);
    beside.wait();
  });
  auto const* kept = activity->computation_union_kept ? &activity->computation_union : nullptr;
  return {*activity, summary_detail::split_exposed_communication(session, matching, kept)};
}

}  // namespace

summary compute_summary(job_session const& session, summary_options const& options) {
  auto const& model = session.model();
  auto const devices = model.devices();
  summary out;
  out.inputs = inputs_with_gpu_ranks(model);

  // The session's device activity: the unions, the communication ∩ computation overlap, the gap
  // scan and the kernel statistics, from one backend call per job.
  auto const needs = summary_needs(options);
  auto const [activity, split] = activity_and_split(session, needs);
  out.devices.reserve(devices.size());
  for (std::size_t g = 0; g < devices.size(); ++g) {
    out.devices.push_back(device_row(devices[g], activity.devices[g]));
    // The origin of the gaps' text offsets: the first GPU operation (every one is in its
    // device's window), like the counts above the same whichever host rows a filter made the
    // reader take.
    auto const first = out.devices.back().window_start_ns;
    out.trace_start_ns = std::min(out.trace_start_ns.value_or(first), first);
  }

  // Idle gaps of the activity union inside each device's window.
  auto const gaps = session.gaps(needs);
  out.gaps.reserve(gaps.size());
  for (auto const& gp : gaps) {
    auto const& key = devices[gp.group];
    out.gaps.push_back(
        gap_summary{key.input, key.rank, key.device, gp.start, gp.end, gp.end - gp.start});
  }
  out.kernels = kernel_rows(model.table(), activity.kernels);
  for (std::size_t g = 0; g < split.size(); ++g) {
    out.devices[g].exposed_comm_wait_ns = split[g].wait_ns;
    out.devices[g].exposed_comm_transfer_ns = split[g].transfer_ns;
  }
  return out;
}

}  // namespace tracesweep
