// SPDX-License-Identifier: Apache-2.0
// The trace model: what every analysis reads besides the columns, derived once per job from the
// event table: producers, ranks, dense device ids, the one definition of communication (the kernel
// pattern, the TensorBoard and Paddle rules and the host-row pattern as named policies), launch
// links (runtime call ↔ device row), profiler steps and each rank's span, the step windows
// diagnoses read (profiler steps, or user ranges named by the step pattern), host-range nesting.
// Analyses take (model, backend) and derive none of this themselves.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/intervals.hpp>
#include <tracesweep/model/name_regex.hpp>

namespace tracesweep {

/// Which profiler wrote an input; decided from the reader's format name once, here.
enum class producer : std::uint8_t { nsys, kineto, paddle, other };
[[nodiscard]] producer producer_of_format(std::string_view format) noexcept;

/// One GPU of the job: the identity behind a dense device id.
struct device_identity {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  std::int32_t device = 0;
};

/// device_group() of a row that is not device activity.
inline constexpr group_id no_device = UINT32_MAX;

struct model_options {
  /// Regex searched case-insensitively in kernel names to mark communication (RE2 syntax).
  std::string comm_pattern = "nccl|rccl";
  /// Regex (RE2, any case) a host user range's whole name must match to be a step window of a
  /// rank without profiler steps (nsys). Empty: no user range is a step window.
  std::string step_pattern = R"(ProfilerStep#\d+)";
  /// Regex (RE2) searched case-insensitively in host row names to mark communication
  /// (communication_policy::host_rows_by_pattern: the diagnosis's rule).
  std::string host_comm_pattern =
      R"(nccl|c10d::|gloo|allreduce|all_reduce|allgather|all_gather|reduce_scatter|alltoall|)"
      R"(broadcast|barrier|record_param_comms)";
  /// Host threads the parts derived on first use may share their passes over the rows among (as
  /// --threads: 0 = TBB's default concurrency). The model is the same whatever the count.
  unsigned threads = 1;
};

/// Which rule says a name is communication. Profilers disagree, and each report reproduces its
/// profiler's own rule, so the model holds them all under one definition:
enum class communication_policy : std::uint8_t {
  /// Kernel names the communication pattern (model_options::comm_pattern) finds, any case.
  kernels_by_pattern,
  /// TensorBoard's NCCL host ops: exactly nccl:broadcast, nccl:reduce, nccl:all_reduce,
  /// nccl:all_gather or nccl:reduce_scatter.
  tensorboard_nccl_ops,
  /// TensorBoard's Gloo host ops: the same five names with the prefix gloo:.
  tensorboard_gloo_ops,
  /// Paddle's kernel rule: the name contains "nccl" or "xccl", any case.
  paddle_names,
  /// The diagnosis's rule for host rows (calls, ops, ranges): names the host communication
  /// pattern (model_options::host_comm_pattern) finds, any case.
  host_rows_by_pattern,
};

/// One step window of a rank or thread: the rows of one name (the rank's threads may each record
/// it) merged, from the earliest start to the latest end.
struct step_window {
  string_id name = 0;
  std::int64_t start = 0, end = 0;
};

/// Kinds Paddle's Model Summary lists as stages (step phases below ProfileStep).
[[nodiscard]] constexpr bool is_stage(event_kind k) noexcept {
  return k == event_kind::data_loader || k == event_kind::forward || k == event_kind::backward ||
         k == event_kind::optimizer;
}

/// Whether `flags` (trace_model::communication_names) marks `name` as communication.
[[nodiscard]] inline bool names_communication(std::span<std::uint8_t const> flags,
                                              string_id name) noexcept {
  return name < flags.size() && flags[name] != 0;
}

class trace_model {
 public:
  /// Derives the model from `table`, which must outlive it. Throws pattern_error when a pattern
  /// of `options` does not compile. Producers and ranks are derived here
  /// (and the patterns compiled); devices with the communication names, launch links, steps, step
  /// windows and nesting on first use (once each, thread-safe), so an analysis pays only for the
  /// parts it reads.
  trace_model(event_table const& table, model_options const& options = {});
  ~trace_model();
  trace_model(trace_model&&) noexcept;
  trace_model& operator=(trace_model&&) = delete;

  [[nodiscard]] event_table const& table() const noexcept { return _table; }

  /// The producer of input `input` / of row `row`.
  [[nodiscard]] producer input_producer(std::int32_t input) const {
    return _producers[static_cast<std::size_t>(input)];
  }
  [[nodiscard]] producer row_producer(std::size_t row) const {
    return input_producer(_table.input_of(row));
  }
  /// Whether an input is Paddle's (only then can a row be left out, or split by Paddle's rules).
  [[nodiscard]] bool has_paddle_input() const noexcept { return _has_paddle; }
  /// Whether an input of producer `p` holds rank `rank`.
  [[nodiscard]] bool rank_has_producer(std::int32_t rank, producer p) const;

  /// Ranks present, ascending; rank_index(r) is r's position (ranks().size() when absent).
  [[nodiscard]] std::span<std::int32_t const> ranks() const noexcept { return _ranks; }
  [[nodiscard]] std::size_t rank_index(std::int32_t rank) const noexcept {
    // Consecutive ranks (the usual 0…n−1) by a subtraction; others by a binary search. Analyses
    // ask once per row.
    if (_consecutive_ranks) {
      auto const at = std::int64_t{rank} - std::int64_t{_ranks.front()};
      return at >= 0 && static_cast<std::uint64_t>(at) < _ranks.size()
                 ? static_cast<std::size_t>(at)
                 : _ranks.size();
    }
    return ranks_lookup(rank);
  }

  /// GPUs with device activity, ordered by (rank, device, input); the index is the dense id.
  [[nodiscard]] std::span<device_identity const> devices() const;
  /// Dense device id of every row (no_device for rows that are not device activity).
  [[nodiscard]] std::span<group_id const> device_group() const;

  /// Whether string `name` is a communication kernel name (kernels_by_pattern), per string id of
  /// the pool.
  [[nodiscard]] bool is_communication(string_id name) const;
  /// The kernels_by_pattern flag (0/1) of every string id (set only for names kernels carry): a
  /// loop over rows takes it once and tests each row with names_communication.
  [[nodiscard]] std::span<std::uint8_t const> communication_names() const;
  /// Whether `name` is communication by `policy` (see communication_policy).
  [[nodiscard]] bool is_communication(std::string_view name, communication_policy policy) const;

  // Launch links. A device row (kernel, memcpy, memset) was launched by the first api_call row of
  // the same input and rank with the same correlation id (≥ 0).

  /// The api_call row that launched `row`, or -1 (not device activity, or no such call).
  [[nodiscard]] std::int64_t launcher(std::size_t row) const;
  /// Whether api_call row `row` launched a device row (some device row's launcher is `row`).
  [[nodiscard]] bool launches_device_work(std::size_t row) const;
  /// Whether `row` takes part in the job tables: Paddle drops device rows no runtime call
  /// launched (§1.2); every other row is kept. (Inline: analyses ask once per row, and only a
  /// job with a Paddle input needs the launch links to tell.)
  [[nodiscard]] bool kept(std::size_t row) const { return !_has_paddle || linked_kept(row); }
  /// Paddle's rule: kernel time (kernel rows only, durations added) launched by the API calls of
  /// thread (input, thread) that lie wholly inside [start, end].
  [[nodiscard]] std::int64_t kernel_time_inside(std::int32_t input, std::int64_t thread,
                                                std::int64_t start, std::int64_t end) const;
  /// Kineto's rule: kernel time (kernel rows only, durations added) launched by API calls of any
  /// host thread of rank `rank` whose start lies in [start, end) (half-open, so back-to-back steps
  /// never share a launch).
  [[nodiscard]] std::int64_t kernel_time_launched_in(std::int32_t rank, std::int64_t start,
                                                     std::int64_t end) const;

  // Steps. A step is a host row (device < 0) of kind profiler_step: Kineto's ProfilerStep#N and
  // Paddle's ProfileStep, as the readers decided. nsys exports have none: NVTX ranges are named by
  // the user, and taking those named like steps would move the denominators of existing reports
  // from the span to the steps (the bundled sample names NVTX ranges ProfilerStep#N), so no NVTX
  // range is a step until that is a deliberate change of the reports.

  /// Step rows of rank ranks()[rank_index], ascending by (start, row).
  [[nodiscard]] std::span<std::size_t const> steps(std::size_t rank_index) const;
  /// Max end − min start over the kept rows of rank ranks()[rank_index] (0 when it has none): the
  /// denominator of a rank without steps (job_session::rank_denominator).
  [[nodiscard]] std::int64_t rank_span(std::size_t rank_index) const;

  // Step windows: what a diagnosis takes as a rank's steps. Unlike steps() above, a rank without
  // profiler steps (an nsys export) has as steps its host user ranges (device < 0, end > start)
  // whose whole name matches the step pattern (model_options::step_pattern; training loops push
  // NVTX ranges named ProfilerStep#12). The rows of one name become one window, from the
  // earliest start to the latest end (each thread of a rank may record the step). Step windows
  // move no denominator.

  /// Whether host user ranges named `name` are steps by the step pattern (whole name, any case);
  /// false for names no host user range carries, and for every name when the pattern is empty.
  [[nodiscard]] bool is_step_name(string_id name) const;
  /// The step windows of rank ranks()[rank_index]: its profiler steps when it has any, else its
  /// user ranges named like steps; merged by name, ascending by (start, end, name).
  [[nodiscard]] std::span<step_window const> step_windows(std::size_t rank_index) const;
  /// The step windows thread (input, thread) recorded itself, from the same rows, merged and
  /// ordered the same way; empty when it recorded none.
  [[nodiscard]] std::span<step_window const> thread_step_windows(std::int32_t input,
                                                                 std::int64_t thread) const;

  // Host-range nesting, from one sweep per (input, thread) over the host rows (device < 0) in
  // (start, API calls after ranges, −end, row) order, as Paddle builds its node tree (§1.2):
  // - a range's parent is the innermost range still open when it starts (ranges ending at or
  //   before its start are closed, so touching ranges are siblings); with proper nesting that is
  //   the innermost range containing it, and a range that overlaps the end of the open one still
  //   hangs under it;
  // - API calls are leaves: a call's parent is the innermost open range that wholly contains it.

  /// The parent row of host row `row`, or -1 (top level, or not a host row).
  [[nodiscard]] std::int64_t parent(std::size_t row) const;
  /// Ranges above host row `row` (0 at top level).
  [[nodiscard]] std::size_t depth(std::size_t row) const;
  /// Host rows of a stage kind (is_stage) that lie inside no other stage of their thread, by
  /// (input, thread, start): a stage starting before the end of the last outermost stage of its
  /// thread is not one (Paddle records a stage and does not descend into it, §1.7).
  [[nodiscard]] std::span<std::size_t const> outermost_stages() const;

 private:
  struct devices_part;
  struct links_part;
  struct call_times_part;
  struct steps_part;
  struct step_names_part;
  struct step_windows_part;
  struct nesting_part;
  struct lazy_parts;
  [[nodiscard]] devices_part const& device_part() const;
  [[nodiscard]] links_part const& links() const;
  [[nodiscard]] call_times_part const& call_times() const;
  [[nodiscard]] steps_part const& step_part() const;
  [[nodiscard]] step_names_part const& step_names() const;
  [[nodiscard]] step_windows_part const& windows() const;
  [[nodiscard]] nesting_part const& nesting() const;
  /// kept() of a job with a Paddle input: the launch links' verdict on `row`.
  [[nodiscard]] bool linked_kept(std::size_t row) const;

  event_table const& _table;
  name_regex _comm_regex;
  name_regex _host_comm_regex;
  std::optional<name_regex> _step_regex;  ///< none for an empty step pattern
  std::vector<producer> _producers;
  bool _has_paddle = false;  ///< an input is Paddle's: only then can a row be left out (kept)
  std::vector<std::int32_t> _ranks;
  bool _consecutive_ranks = false;  ///< _ranks is front() … front() + size() − 1
  unsigned _threads = 1;            ///< model_options::threads, resolved
  [[nodiscard]] std::size_t ranks_lookup(std::int32_t rank) const noexcept;
  std::unique_ptr<lazy_parts> _lazy;
};

}  // namespace tracesweep
