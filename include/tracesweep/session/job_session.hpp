// SPDX-License-Identifier: Apache-2.0
// The job session: what the analyses of one job read besides the trace model, each part
// computed once on first use by the job's backend and then kept until the job's last analysis
// has run: the device activity (each device's window, its unions by class and their lengths, the
// communication ∩ computation overlap, the idle gaps, per-name kernel statistics) and each
// device's rows in start order. Analyses take a session and derive none of these themselves.
#pragma once

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

class job_session {
 public:
  /// `model` and `be` must outlive the session. Nothing is computed here.
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

  /// Each device's activity rows by (start, row): one sort by the backend on first use.
  [[nodiscard]] device_rows const& device_order() const;

 private:
  struct parts;
  trace_model const& _model;
  backend& _be;
  activity_needs _needs;
  std::unique_ptr<parts> _parts;
};

}  // namespace tracesweep
