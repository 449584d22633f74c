// SPDX-License-Identifier: Apache-2.0
// Memory that grows step after step: the per-step peak allocated total of each (rank, device)
// over the diagnosis's steps, runs of step-to-step increases above the threshold, and the
// memory timeline for the page's chart.
#include <tracesweep/reports/paddle/memory_table.hpp>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

namespace {

/// The diagnosis's step windows per rank index, as memory windows.
std::vector<std::vector<memory_window>> windows_of(trace_model const& model) {
  auto const& strings = model.table().strings();
  std::vector<std::vector<memory_window>> out(model.ranks().size());
  for (std::size_t r = 0; r < out.size(); ++r)
    for (auto const& s : model.step_windows(r))
      out[r].push_back({std::string(strings.at(s.name)), s.start, s.end});
  return out;
}

/// Whether step peak `b` follows `a` (same device, the next step) higher by more than `bytes`.
bool grows(memory_step_row const& a, memory_step_row const& b, std::int64_t bytes) {
  return a.rank == b.rank && a.device == b.device && b.step == a.step + 1 &&
         b.peak_allocated - a.peak_allocated > bytes;
}

memory_finding staircase(memory_step_row const& first, memory_step_row const& last) {
  memory_finding f;
  f.rank = first.rank, f.device = first.device;
  f.start_ns = first.start_ns, f.end_ns = last.end_ns;
  f.peak_bytes = last.peak_allocated;
  f.first_step = first.step;
  f.steps = last.step - first.step + 1;
  f.growth_bytes_per_step = (last.peak_allocated - first.peak_allocated) / (f.steps - 1);
  return f;
}

}  // namespace

void find_memory_growth(trace_model const& model, diagnosis& out) {
  auto const& table = model.table();
  auto const series = memory_series_of(table);
  if (series.empty()) return;
  auto const peaks = memory_step_peaks(model, series, windows_of(model));
  auto const& o = out.options;
  // Maximal runs of increases: rows [begin, k] where each row grows from the one before.
  std::size_t begin = 0;
  for (std::size_t k = 0; k < peaks.size(); ++k) {
    bool const run_goes_on =
        k + 1 < peaks.size() && grows(peaks[k], peaks[k + 1], o.memory_growth_bytes);
    if (run_goes_on) continue;
    auto const increases = k - begin;
    if (increases > 0 && increases >= o.memory_growth_steps)
      out.memory.push_back(staircase(peaks[begin], peaks[k]));
    begin = k + 1;
  }
  for (auto const& p : peaks)
    out.memory_steps.push_back({p.rank, p.device, p.step, p.start_ns, p.end_ns, p.peak_allocated});
  for (auto const& b : memory_timeline(table, series, o.timeline_bins))
    out.memory_timeline.push_back({b.rank, b.device, b.start_ns, b.end_ns, b.peak_allocated});
}

}  // namespace tracesweep::diagnose_detail
