// SPDX-License-Identifier: Apache-2.0
// The job session's parts, each computed once (std::call_once) on first use and kept.
#include <tracesweep/session/job_session.hpp>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "session/session_parts.hpp"

namespace tracesweep {

activity_needs operator|(activity_needs const& a, activity_needs const& b) noexcept {
  activity_needs out;
  out.min_gap_ns = std::min(a.min_gap_ns, b.min_gap_ns);
  out.gaps_per_device = a.gaps_per_device == 0 || b.gaps_per_device == 0
                            ? 0
                            : std::max(a.gaps_per_device, b.gaps_per_device);
  out.unions = a.unions || b.unions;
  out.computation_union = a.computation_union || b.computation_union;
  return out;
}

bool activity_needs::covers(activity_needs const& asked) const noexcept {
  bool const enough_gaps = gaps_per_device == 0 ||
                           (asked.gaps_per_device != 0 && asked.gaps_per_device <= gaps_per_device);
  return min_gap_ns <= asked.min_gap_ns && enough_gaps && (unions || !asked.unions) &&
         (unions || computation_union || !asked.computation_union);
}

std::int64_t union_members::total() const noexcept {
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < size(); ++k) sum += end[k] - start[k];
  return sum;
}

std::int64_t union_members::covered(std::int64_t lo, std::int64_t hi) const noexcept {
  if (hi <= lo) return 0;
  // The first member ending after lo.
  auto k = static_cast<std::size_t>(std::upper_bound(end.begin(), end.end(), lo) - end.begin());
  std::int64_t total = 0;
  for (; k < size() && start[k] < hi; ++k) total += std::min(end[k], hi) - std::max(start[k], lo);
  return total;
}

union_members members_of(interval_union const& u, group_id g) {
  auto const first = std::lower_bound(u.group.begin(), u.group.end(), g);
  auto const last = std::upper_bound(first, u.group.end(), g);
  auto const at = static_cast<std::size_t>(first - u.group.begin());
  auto const n = static_cast<std::size_t>(last - first);
  return {std::span(u.start).subspan(at, n), std::span(u.end).subspan(at, n)};
}

job_session::job_session(trace_model const& model, backend& be, activity_needs const& needs)
    : _model(model), _be(be), _needs(needs), _parts(std::make_unique<parts>()) {
  auto const& t = model.table();
  hold(std::span(t.start_ns));
  hold(std::span(t.end_ns));
  hold(std::span(t.kind));
  hold(std::span(t.name));
}

job_session::~job_session() {
  for (auto const column : _parts->held) _be.release(column);
}

void job_session::hold_bytes(std::span<std::byte const> column) const {
  std::lock_guard const lock(_parts->held_mutex);
  _be.hold(column);
  _parts->held.push_back(column);
}

activity_result const& job_session::activity(activity_needs const& asked) const {
  if (!_needs.covers(asked))
    throw std::logic_error("job_session: the session was not built for this analysis's needs");
  std::call_once(_parts->activity_once, [this] {
    hold(_model.device_group());
    hold(_model.communication_names());
    _parts->activity = session_detail::compute_activity(*this);
  });
  return _parts->activity;
}

std::vector<gap> job_session::gaps(activity_needs const& asked) const {
  auto const& kept = activity(asked).gaps;
  std::vector<gap> out;
  // Two passes: the first counts, so the list is allocated once at its size (a million gaps).
  for (int pass = 0; pass < 2; ++pass) {
    std::size_t taken = 0, listed = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (i == 0 || kept[i].group != kept[i - 1].group) taken = 0;
      if (kept[i].duration() < asked.min_gap_ns) continue;
      if (asked.gaps_per_device != 0 && taken == asked.gaps_per_device) continue;
      ++taken, ++listed;
      if (pass == 1) out.push_back(kept[i]);
    }
    if (pass == 0) out.reserve(listed);
  }
  return out;
}

device_rows const& job_session::device_order() const {
  std::call_once(_parts->order_once,
                 [this] { _parts->order = session_detail::order_device_rows(_model, _be); });
  return _parts->order;
}

table_devices const& job_session::table_device_groups() const {
  std::call_once(_parts->devices_once,
                 [this] { _parts->devices = session_detail::group_table_devices(_model); });
  return _parts->devices;
}

interval_union const& job_session::unions(table_union which) const {
  auto const k = static_cast<std::size_t>(which);
  std::call_once(_parts->union_once.at(k),
                 [&] { _parts->unions[k] = session_detail::compute_table_union(*this, which); });
  return _parts->unions[k];
}

std::span<table_device const> job_session::rank_devices() const {
  return table_device_groups().by_rank;
}

std::span<table_device const> job_session::input_devices() const {
  return table_device_groups().by_input;
}

denominator job_session::rank_denominator(std::size_t rank_index) const {
  std::call_once(_parts->denominators_once,
                 [this] { _parts->denominators = session_detail::compute_denominators(*this); });
  return _parts->denominators.at(rank_index);
}

}  // namespace tracesweep
