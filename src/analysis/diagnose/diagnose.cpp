// SPDX-License-Identifier: Apache-2.0
// The diagnosis, step by step: the device part from the job session (its device activity with
// the unions, gaps and per-name kernel statistics, and each device's rows in start order); then
// the host side of each gap, verdicts, periodic gaps, long tail,
// bursts, sync and copy costs, stragglers and late arrivals at collectives, the utilization
// timeline.
#include <tracesweep/analysis/diagnose.hpp>

#include <algorithm>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep {

std::string_view to_string(idle_cause c) noexcept {
  switch (c) {
    case idle_cause::data_loading:
      return "data_loading";
    case idle_cause::sync:
      return "sync";
    case idle_cause::memcpy:
      return "memcpy";
    case idle_cause::communication:
      return "communication";
    case idle_cause::host_compute:
      return "host_compute";
    case idle_cause::launch:
      return "launch";
    case idle_cause::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(verdict v) noexcept {
  switch (v) {
    case verdict::gpu_bound:
      return "gpu_bound";
    case verdict::cpu_bound:
      return "cpu_bound";
    case verdict::data_loading_bound:
      return "data_loading_bound";
    case verdict::communication_bound:
      return "communication_bound";
    case verdict::sync_bound:
      return "sync_bound";
    case verdict::balanced:
      break;
  }
  return "balanced";
}

activity_needs diagnose_needs(diagnose_options const& options) noexcept {
  return {options.min_gap_ns, 0, true};
}

diagnosis diagnose(trace_model const& model, backend& be, diagnose_options const& options) {
  return diagnose(job_session(model, be, diagnose_needs(options)), options);
}

diagnosis diagnose(job_session const& session, diagnose_options const& options) {
  using namespace diagnose_detail;
  auto const& model = session.model();
  diagnosis out;
  out.options = options;
  // Compiles every pattern before any work, so a bad one fails first.
  host_classifier const classifier(model, options);
  // Host work runs on the backend's host threads (--threads), in an arena of that many: with
  // one, every task below runs on the calling thread, one after another.
  tbb::task_arena arena(static_cast<int>(std::max(1u, session.primitives().host_threads())));
  arena.execute([&] {
    // The model's step windows and launch links are host work of their own: another thread
    // builds them while the backend works on the device activity. Nothing of the result depends
    // on which finishes first.
    tbb::task_group steps_ready;
    steps_ready.run([&model] {
      if (!model.ranks().empty()) (void)model.step_windows(0);  // builds every rank's
      if (model.table().size() > 0) (void)model.launcher(0);    // builds every row's launch link
    });
    auto const needs = diagnose_needs(options);
    auto const& activity = session.activity(needs);
    auto const holes = session.gaps(needs);
    auto const unions = unions_of(activity);
    auto const& order = session.device_order();

    // The detectors each fill their own members of `out` and read only the model, the session's
    // parts and what is passed to them: those that need neither the attributed gaps nor the
    // verdicts start now, beside the gap attribution (while another thread may still be building
    // the launch links); periodic gaps and stragglers (which add to the verdicts) once those are
    // complete. The diagnosis is the same in any order.
    tbb::task_group detectors;
    detectors.run([&] { find_long_tail(model, classifier, out); });
    detectors.run([&] { find_bursts(model, order, classifier, out); });
    detectors.run([&] { find_sync_and_copies(session, classifier, activity, out); });
    detectors.run([&] { build_timeline(model, unions, activity, out); });
    detectors.run([&] { find_memory_growth(model, out); });
    steps_ready.wait();  // this thread may take detectors meanwhile
    auto const threads = main_threads(model, order);
    auto const gaps = attribute_gaps(model, order, holes, classifier, threads, out);
    find_verdicts(model, unions, activity, gaps, threads, out);
    detectors.run([&] { find_periodic_gaps(model, activity, gaps, out); });
    detectors.run([&] {
      auto const matching = match_collectives(model);
      find_stragglers(model, matching, out);
      find_late_arrivals(model, order, classifier, matching, out);
    });
    detectors.wait();
  });
  return out;
}

}  // namespace tracesweep
