// SPDX-License-Identifier: Apache-2.0
// The job session: what the analyses of one job read besides the trace model, each part
// computed once on first use by the job's backend and then kept until the job's last analysis
// has run: the device activity (each device's window, its unions by class and their lengths, the
// communication ∩ computation overlap, the idle gaps, per-name kernel statistics), each
// device's rows in start order, the unions the job tables read (steps, kernels per GPU, data
// loaders) and the denominators. Analyses take a session and derive none of these themselves.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/model/trace_model.hpp>

namespace tracesweep {

/// What the session's device activity must hold for the analyses of a job; a session is built
/// with the needs of every analysis it will serve, combined with `|`.
struct activity_needs {
  std::int64_t min_gap_ns = 0;      ///< the shortest idle gap kept
  std::size_t gaps_per_device = 0;  ///< the longest gaps kept per device (0 = all)
  bool unions = false;              ///< keep the unions themselves, not only their lengths
  /// Keep the computation kernels' union where the backend has it on the host anyway
  /// (activity_request::keep_computation_union): the summary's exposed split then reads it after
  /// the activity instead of building the part of it that it reads.
  bool computation_union = false;

  /// Needs that cover both: the shorter gaps, more of them, the unions if either keeps them.
  friend activity_needs operator|(activity_needs const& a, activity_needs const& b) noexcept;
  /// Whether what these needs keep answers `asked` (its gaps are a selection of these).
  [[nodiscard]] bool covers(activity_needs const& asked) const noexcept;
};

/// Device activity rows (kernel, memcpy, memset) per dense device id, by (start, row).
struct device_rows {
  std::vector<std::size_t> rows;
  std::vector<std::size_t> offsets;  ///< device g owns rows[offsets[g], offsets[g + 1])
  [[nodiscard]] std::span<std::size_t const> of(std::size_t g) const {
    return std::span(rows).subspan(offsets[g], offsets[g + 1] - offsets[g]);
  }
};

/// The members of group `g` of a union: start and end columns, in start order.
struct union_members {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
  /// Σ lengths.
  [[nodiscard]] std::int64_t total() const noexcept;
  /// |this ∩ [lo, hi)|.
  [[nodiscard]] std::int64_t covered(std::int64_t lo, std::int64_t hi) const noexcept;
};
/// Group `g`'s members of `u` (sorted by group).
[[nodiscard]] union_members members_of(interval_union const& u, group_id g);

/// A rank's denominator (Paddle §1.4): |∪ its steps| when it has steps, else its span.
struct denominator {
  std::int64_t total_ns = 0;
  bool from_steps = false;
};

/// Unions the job tables read besides the device activity, each one backend call on first use.
enum class table_union : std::uint8_t {
  steps_by_rank,                ///< group = rank index: the rank's profiler steps
  kept_kernels_by_rank_device,  ///< group = index in rank_devices(): kept kernel rows
  kernels_by_input_device,      ///< group = index in input_devices(): kernel rows
  data_loaders_by_rank,         ///< group = rank index: host data-loader ranges
};
inline constexpr std::size_t table_union_count = 4;

/// A GPU as the job tables group it: by rank index and device, or by input and device.
struct table_device {
  std::size_t owner = 0;  ///< rank index, or input index
  std::int32_t device = 0;
  friend auto operator<=>(table_device const&, table_device const&) = default;
};

struct table_devices;

class job_session {
 public:
  /// `model` and `be` must outlive the session. Nothing is computed here. The session holds the
  /// event table's columns on `be` (backend::hold) until it ends, so a device backend copies each
  /// once for the whole job.
  job_session(trace_model const& model, backend& be, activity_needs const& needs);
  ~job_session();
  job_session(job_session const&) = delete;
  job_session& operator=(job_session const&) = delete;

  [[nodiscard]] trace_model const& model() const noexcept { return _model; }
  [[nodiscard]] backend& primitives() const noexcept { return _be; }
  [[nodiscard]] activity_needs const& needs() const noexcept { return _needs; }

  /// The device activity of every device (index = dense device id), one backend call on first
  /// use: windows, lengths of the unions, overlap, kernel counts; the gaps the needs keep,
  /// ordered by (device, duration desc, start); kernel durations' statistics by name id; the
  /// unions when the needs keep them. Throws std::logic_error when the session's needs do not
  /// cover `asked` (a caller's mistake: the session was built for other analyses).
  [[nodiscard]] activity_result const& activity(activity_needs const& asked) const;

  /// The kept gaps that `asked` selects: at least its min_gap_ns, its gaps_per_device longest of
  /// each device, in the same order.
  [[nodiscard]] std::vector<gap> gaps(activity_needs const& asked) const;

  /// Each device's activity rows by (start, row) on first use: its few ascending runs merged on
  /// the host (an nsys export's, one per table), else one sort by the backend.
  [[nodiscard]] device_rows const& device_order() const;

  /// The union `which`, by the backend on first use (see table_union for its groups).
  [[nodiscard]] interval_union const& unions(table_union which) const;
  /// The (rank index, device) of each group of kept_kernels_by_rank_device, ascending.
  [[nodiscard]] std::span<table_device const> rank_devices() const;
  /// The (input, device) of each group of kernels_by_input_device, ascending.
  [[nodiscard]] std::span<table_device const> input_devices() const;
  /// The denominator of rank ranks()[rank_index]: |∪ its steps| (touching steps merge) from
  /// unions(steps_by_rank), else the span of its kept rows.
  [[nodiscard]] denominator rank_denominator(std::size_t rank_index) const;

 private:
  struct parts;
  [[nodiscard]] table_devices const& table_device_groups() const;
  /// Holds `column` on the backend until the session ends.
  template <class T>
  void hold(std::span<T const> column) const {
    hold_bytes(std::as_bytes(column));
  }
  void hold_bytes(std::span<std::byte const> column) const;
  trace_model const& _model;
  backend& _be;
  activity_needs _needs;
  std::unique_ptr<parts> _parts;
};

}  // namespace tracesweep
