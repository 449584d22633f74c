// SPDX-License-Identifier: Apache-2.0
// Bottleneck diagnosis: what a performance engineer does by hand in Nsight Systems or Perfetto,
// for one trace or a whole multi-rank job. Idle gaps of each device's activity union with the
// host activity around them and a cause, verdicts per device and per step, periodic gaps,
// long-tail kernel instances, tiny-kernel bursts, sync and copy costs, straggler ranks, ranks the
// others wait for at collectives, memory that grows step after step.
// docs/diagnose.md defines every finding, cause and threshold.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/output/result_table.hpp>
#include <tracesweep/session/job_session.hpp>

namespace tracesweep {

/// Why a device sat idle: the host activity that covers most of a gap.
enum class idle_cause : std::uint8_t {
  data_loading,
  sync,
  memcpy,
  communication,
  host_compute,
  launch,
  unknown
};
inline constexpr int idle_cause_count = 7;
[[nodiscard]] std::string_view to_string(idle_cause c) noexcept;

enum class verdict : std::uint8_t {
  gpu_bound,
  cpu_bound,
  data_loading_bound,
  communication_bound,
  sync_bound,
  balanced
};
[[nodiscard]] std::string_view to_string(verdict v) noexcept;

struct diagnose_options {
  std::int64_t min_gap_ns = 100'000;  ///< shortest idle gap examined
  /// Verdicts: busy share at or above this is GPU-bound (unless communication is exposed).
  double busy_threshold = 0.80;
  /// Verdicts: exposed communication (not overlapped by computation) share of the window at or
  /// above this is communication-bound.
  double communication_threshold = 0.20;
  /// Verdicts: below the busy threshold, the idle cause group with the largest share decides
  /// when its share of the window reaches this; otherwise balanced.
  double idle_cause_threshold = 0.10;
  /// Periodic gaps: at least this many gaps of one cause on one device ...
  std::size_t periodic_min_count = 3;
  /// ... whose start-to-start intervals lie within ± this fraction of their median (80 % of them).
  double periodic_tolerance = 0.25;
  /// Long tail: instances longer than factor × their group's median (name and launch
  /// configuration; communication kernels left out), for groups with at least
  /// long_tail_min_count instances.
  double long_tail_factor = 3.0;
  std::size_t long_tail_min_count = 20;
  /// Tiny-kernel bursts: at least burst_min_kernels consecutive kernels of one device, each
  /// shorter than tiny_kernel_ns, each starting at most burst_max_gap_ns after the previous one
  /// ends, launched from one host op.
  std::int64_t tiny_kernel_ns = 10'000;
  std::size_t burst_min_kernels = 50;
  std::int64_t burst_max_gap_ns = 20'000;
  /// Small copies: copies of at most small_copy_bytes, host↔device, at least small_copy_count
  /// of one direction in one step.
  std::int64_t small_copy_bytes = 64 * 1024;
  std::size_t small_copy_count = 10;
  /// Stragglers: mean step time above the median rank's by more than this fraction.
  double straggler_threshold = 0.10;
  /// Host ranges whose name matches this RE2 pattern (searched, any case) are data loading.
  std::string data_loader_pattern = R"(dataloader|data_loader|__next__)";
  /// Per-instance lists (gaps, long tail, bursts, small copies) keep the top this many; 0 = all.
  std::size_t top = 50;
  /// Host events listed per gap or long-tail instance.
  std::size_t host_events = 8;
  /// Bins of the utilization timeline per device (and of the memory timeline).
  std::size_t timeline_bins = 200;
  /// Memory staircase: the per-step peak allocated memory of one (rank, device) grows by more
  /// than memory_growth_bytes from each step to the next, memory_growth_steps times in a row.
  std::int64_t memory_growth_bytes = std::int64_t{1} << 20;
  std::size_t memory_growth_steps = 4;
};

/// A device row next to a gap, or a host row in progress during one.
struct context_event {
  std::string name;
  event_kind kind = event_kind::other;
  std::int64_t thread = -1;  ///< host: thread id; device: stream
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct device_key {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  std::int32_t device = 0;
};

using idle_by_cause = std::array<std::int64_t, idle_cause_count>;

struct verdict_row {
  device_key where;
  std::optional<std::int32_t> step;  ///< index among the rank's steps; none: whole trace
  std::string step_name;
  std::int64_t window_start_ns = 0, window_end_ns = 0;
  verdict what = verdict::balanced;
  double busy_share = 0;
  double exposed_communication_share = 0;
  idle_by_cause idle{};            ///< idle in examined gaps (≥ min gap), by the gap's cause
  std::int64_t idle_short_ns = 0;  ///< idle in holes shorter than the min gap
};

/// An idle gap. Its context is kept as rows of the diagnosis's event table and described when
/// read (diagnosis::host_of, diagnosis::describe): a listing of every gap holds ~150 bytes a gap,
/// not the names of its context.
struct gap_finding {
  device_key where;
  idle_cause cause = idle_cause::unknown;
  std::int64_t start_ns = 0, end_ns = 0;
  idle_by_cause cover{};  ///< ns of the gap attributed to each cause
  /// Its host rows in progress during it, most overlap first: diagnosis::gap_host_rows[from, to).
  std::size_t host_from = 0, host_to = 0;
  /// The device rows whose end opens it and that start after it (-1: none).
  std::int64_t before = -1, after = -1;
  [[nodiscard]] std::int64_t duration() const noexcept { return end_ns - start_ns; }
};

struct periodic_gap_finding {
  device_key where;
  std::int64_t period_ns = 0;
  std::int64_t count = 0;
  std::int64_t total_ns = 0;
  double share = 0;  ///< total_ns / device window
  idle_cause cause = idle_cause::unknown;
  std::int64_t first_start_ns = 0;
};

struct long_tail_finding {
  device_key where;
  std::string name;
  std::int64_t start_ns = 0, duration_ns = 0;
  double median_ns = 0;     ///< of its group (name and launch configuration)
  std::string launch;       ///< "grid XxYxZ, block XxYxZ" ("" when the trace records none)
  std::string launched_by;  ///< innermost host op around the launch ("" when unknown)
  std::vector<context_event> host;
};

/// Every long-tail instance of one group (name and launch configuration), before --top cuts
/// the instance list.
struct long_tail_name {
  std::string name;
  std::string launch;  ///< as long_tail_finding::launch
  std::int64_t instances = 0;
  std::int64_t excess_ns = 0;  ///< Σ (duration − median)
  double median_ns = 0;
  double worst_ratio = 0;
};

struct burst_finding {
  device_key where;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t kernels = 0;
  std::int64_t kernel_ns = 0;  ///< Σ kernel durations
  std::string launched_by;     ///< "" when the launches are not linked to a host op
};

struct sync_row {
  std::int32_t input = 0, rank = 0;
  std::int64_t thread = -1;
  std::int64_t calls = 0, total_ns = 0;
  double share = 0;  ///< of the rank's denominator (steps, else span)
};

struct memcpy_row {
  device_key where;
  std::string direction;
  std::int64_t calls = 0, total_ns = 0, bytes = 0;
  double share = 0;  ///< Σ durations / device window
};

struct small_copy_finding {
  device_key where;
  std::int32_t step = 0;
  std::string step_name;
  std::string direction;
  std::int64_t copies = 0, bytes = 0, total_ns = 0;
};

struct rank_steps {
  std::int32_t rank = 0;
  std::int64_t steps = 0;
  std::int64_t mean_step_ns = 0;
  /// Its collectives' wait for later ranks per step (kernels starting in its steps; 0 when no
  /// collective is matched across ranks).
  std::int64_t mean_wait_ns = 0;
  double utilization = 0;  ///< mean busy share of its devices
  /// The step time less the wait for the other ranks.
  [[nodiscard]] std::int64_t mean_work_ns() const noexcept { return mean_step_ns - mean_wait_ns; }
};

/// A rank slower than the median rank both in step time and in step time less its wait for the
/// other ranks: a rank whose steps are long only because it waits is none.
struct straggler_finding {
  std::int32_t rank = 0;
  std::int64_t mean_step_ns = 0;
  std::int64_t median_rank_step_ns = 0;
  double excess = 0;  ///< mean / median − 1
  std::int64_t mean_wait_ns = 0;
  double work_excess = 0;  ///< its mean_work_ns / the median rank's − 1
};

/// A host row name a late rank spent more time in than the other participants between their
/// previous collective and their arrival at its costliest late instance.
struct host_excess {
  std::string name;
  std::int64_t late_ns = 0;    ///< the late rank's time in rows of that name
  std::int64_t others_ns = 0;  ///< the other participants' median time
  [[nodiscard]] std::int64_t excess_ns() const noexcept { return late_ns - others_ns; }
};

/// A rank the others wait for at collectives (instances matched across ranks, collectives.hpp).
struct late_arrival_finding {
  std::int32_t rank = 0;
  std::int64_t collectives = 0;     ///< its kernels in matched instances
  std::int64_t last_arrivals = 0;   ///< instances where it alone arrived last
  std::int64_t wait_caused_ns = 0;  ///< Σ the other participants' waits at those instances
  // Its costliest late arrival:
  device_key where;
  std::string name;                   ///< its kernel there
  std::int64_t first_arrival_ns = 0;  ///< the earliest participant's start
  std::int64_t arrival_ns = 0;        ///< its own start
  std::int64_t worst_wait_caused_ns = 0;
  std::string launched_by;  ///< innermost host op around the launch ("" when unknown)
  /// Its launching thread's rows during [first arrival, arrival): what it did meanwhile.
  std::vector<context_event> host;
  /// What it spent longer in than the others since their previous collective, largest first.
  std::vector<host_excess> behind;
};

struct timeline_bin {
  device_key where;
  std::int64_t start_ns = 0, end_ns = 0;
  double busy_share = 0;
};

/// Memory that grows step after step (a leak, or a cache that never stops growing).
struct memory_finding {
  std::int32_t rank = 0;
  std::int32_t device = -1;  ///< -1: host memory
  std::string kind = "staircase";
  std::int64_t start_ns = 0;    ///< start of the run's first step
  std::int64_t end_ns = 0;      ///< end of its last step
  std::int64_t peak_bytes = 0;  ///< the last step's peak allocated total
  /// (last step's peak − first step's peak) / (steps − 1), rounded toward zero.
  std::int64_t growth_bytes_per_step = 0;
  std::int32_t first_step = 0;  ///< index among the rank's steps
  std::int32_t steps = 0;       ///< steps in the run
};
/// The peak allocated memory of one (rank, device) in one step (memory_step_row's rule).
struct memory_step_peak {
  std::int32_t rank = 0, device = -1, step = 0;
  std::int64_t start_ns = 0, end_ns = 0, peak_bytes = 0;
};
/// The allocated total of one (rank, device) over a time bin (memory_timeline_bin's rule).
struct memory_bin {
  std::int32_t rank = 0, device = -1;
  std::int64_t start_ns = 0, end_ns = 0, peak_bytes = 0;
};

struct diagnosis {
  std::vector<verdict_row> verdicts;  ///< per device (step none), then per (device, step)
  std::vector<gap_finding> gaps;      ///< longest first, the top `top`
  std::int64_t gaps_total = 0;
  std::vector<periodic_gap_finding> periodic_gaps;
  std::vector<long_tail_finding> long_tail;  ///< largest ratio first, the top `top`
  std::int64_t long_tail_total = 0;
  std::vector<long_tail_name> long_tail_names;  ///< largest excess first
  std::vector<burst_finding> bursts;            ///< most kernels first, the top `top`
  std::int64_t bursts_total = 0;
  std::vector<sync_row> sync;
  std::vector<memcpy_row> memcpy;
  std::vector<small_copy_finding> small_copies;
  std::int64_t small_copies_total = 0;
  std::vector<rank_steps> ranks;
  std::vector<straggler_finding> stragglers;
  std::vector<late_arrival_finding> late_arrivals;  ///< most wait caused first
  std::vector<timeline_bin> timeline;
  std::vector<std::int64_t> gap_durations;  ///< every examined gap, for the histogram
  std::vector<idle_cause> gap_causes;       ///< alongside gap_durations
  std::vector<memory_finding> memory;       ///< by (rank, device, start)
  std::vector<memory_step_peak> memory_steps;
  std::vector<memory_bin> memory_timeline;
  diagnose_options options;
  /// The gaps' host rows (gap_finding::host_from, host_to).
  std::vector<std::size_t> gap_host_rows;
  /// The table whose rows the gaps name; it outlives the diagnosis and what is written from it.
  event_table const* events = nullptr;

  /// A gap's host rows, most overlap first.
  [[nodiscard]] std::span<std::size_t const> host_of(gap_finding const& g) const;
  /// A row of the event table with its name; none for -1.
  [[nodiscard]] std::optional<context_event> describe(std::int64_t row) const;
};

/// What the diagnosis reads of a session's device activity: every gap of at least the minimum,
/// and the unions.
[[nodiscard]] activity_needs diagnose_needs(diagnose_options const& options) noexcept;

/// Diagnoses the job from its session. Throws pattern_error when a pattern of `options` does not
/// compile.
[[nodiscard]] diagnosis diagnose(job_session const& session, diagnose_options const& options);
/// The same on a session of its own.
[[nodiscard]] diagnosis diagnose(trace_model const& model, backend& be,
                                 diagnose_options const& options);

/// The diagnosis as result tables: verdicts, findings, gaps, periodic_gaps, long_tail,
/// tiny_kernel_bursts, sync, memcpy, small_copies, ranks, stragglers, late_arrivals, memory,
/// memory_steps, and
/// the HTML charts (memory_timeline among them). The set keeps the diagnosis: the gaps table
/// makes its rows from it as they are written (every gap with --top 0).
[[nodiscard]] output::result_set diagnose_results(diagnosis d);

}  // namespace tracesweep
