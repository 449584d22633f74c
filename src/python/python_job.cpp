// SPDX-License-Identifier: Apache-2.0
#include "python/python_job.hpp"

#include "python/free_memory.hpp"

namespace tracesweep::python {

namespace {

/// What the job reads: every kind, with the launch configurations the diagnosis groups by.
read_options job_reading(read_options base) {
  base.kinds = all_event_kinds;
  base.streams = base.correlations = true;
  base.launch_shapes = true;
  base.launch_details = base.range_sources = base.gpu_contexts = false;
  base.kernel_names = kernel_naming::demangled;
  base.progress = nullptr;
  return base;
}

}  // namespace

python_job::python_job(job_settings settings)
    : _settings(std::move(settings)), _held(job_reading(_settings.reading)) {
  read_into(_table, _held);
}

python_job::~python_job() {
  _other.reset();
  _table = event_table{};
  release_free_memory();
}

void python_job::read_into(event_table& table, read_options options) const {
  options.threads = _settings.reading.threads;
  options.max_event_bytes = _settings.reading.max_event_bytes;
  options.max_inflate_ratio = _settings.reading.max_inflate_ratio;
  options.ranks_from = _settings.reading.ranks_from;
  options.keep_duplicates = _settings.reading.keep_duplicates;
  options.progress = nullptr;
  // A row filter reads what it narrows by (NVTX ranges, steps, the trace's start): every kind.
  if (!_settings.filter.empty()) options.kinds = all_event_kinds;
  (void)read_inputs(_settings.paths, table, options, false);
  if (!_settings.filter.empty()) apply_row_filter(table, _settings.filter);
}

bool python_job::serves(read_options const& w) const noexcept {
  auto const covers = [](bool held, bool wanted) { return held || !wanted; };
  return (w.kinds & ~_held.kinds) == 0 && w.kernel_names == _held.kernel_names &&
         covers(_held.launch_details, w.launch_details) &&
         covers(_held.launch_shapes, w.launch_shapes) &&
         covers(_held.range_sources, w.range_sources) &&
         covers(_held.gpu_contexts, w.gpu_contexts) && covers(_held.streams, w.streams) &&
         covers(_held.correlations, w.correlations);
}

event_table const& python_job::serving(read_options const& wanted) {
  if (serves(wanted)) return _table;
  _other = std::make_unique<event_table>();
  read_into(*_other, wanted);
  return *_other;
}

}  // namespace tracesweep::python
