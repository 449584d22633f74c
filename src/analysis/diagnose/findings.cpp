// SPDX-License-Identifier: Apache-2.0
// The findings as text lines, ranked by the time they cost: each says what was found with its
// numbers, why it matters and where to look.
#include <algorithm>
#include <map>
#include <tracesweep/exact_stats.hpp>
#include <tracesweep/output/range_names.hpp>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep {

namespace {

struct finding {
  std::int64_t cost_ns = 0;
  std::string what, why, look;
};

std::string ms(std::int64_t ns) {
  return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
}

std::string on(device_key const& w) {
  return fmt::format("rank {} GPU {}", w.rank, w.device);
}

std::pair<char const*, char const*> advice(idle_cause c) {
  switch (c) {
    case idle_cause::data_loading:
      return {"the GPU waits for the next batch",
              "the DataLoader: num_workers, pin_memory, prefetch_factor, the dataset's "
              "__getitem__"};
    case idle_cause::sync:
      return {
          "a synchronising call drained the queue; the GPU idles until the host launches "
          "again",
          "the .item()/.cpu()/synchronize calls among the gap's host events; make them "
          "asynchronous or move them out of the step"};
    case idle_cause::memcpy:
      return {"a blocking copy holds the host while nothing is queued",
              "pageable copies: pinned memory and non_blocking=True"};
    case idle_cause::communication:
      return {"the host blocks in a collective while the GPU idles",
              "host-side collectives and barriers; overlap communication with compute"};
    case idle_cause::host_compute:
      return {"the host computes without launching GPU work",
              "the host ops listed with the gap; move the work to the GPU or off the loop"};
    case idle_cause::launch:
      return {"the host launches kernels more slowly than the GPU runs them",
              "launch overhead: fuse small ops, torch.compile, CUDA graphs"};
    case idle_cause::unknown:
      break;
  }
  return {"the GPU idles and no traced host activity explains it",
          "untraced host work: add NVTX ranges or trace Python stacks"};
}

/// The distinct names of the host rows of the unknown gaps on one device, most overlap first
/// within each gap, at most three ("" when no row overlaps them).
std::string host_ops_of(diagnosis const& d, std::int32_t input, std::int32_t rank,
                        std::int32_t device) {
  std::vector<std::string> names;
  for (auto const& g : d.gaps) {
    if (g.cause != idle_cause::unknown || g.where.input != input || g.where.rank != rank ||
        g.where.device != device)
      continue;
    for (auto const row : d.host_of(g)) {
      std::string n(output::without_emit_nvtx_suffixes(d.describe(row)->name));
      if (names.size() < 3 && std::find(names.begin(), names.end(), n) == names.end())
        names.push_back(std::move(n));
    }
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

void gap_findings(diagnosis const& d, std::vector<finding>& out) {
  // Periodic series first; the remaining gaps grouped by (device, cause).
  for (auto const& p : d.periodic_gaps) {
    auto const [why, look] = advice(p.cause);
    out.push_back(
        {p.total_ns,
         fmt::format("periodic {} gaps on {}: {} gaps every {}, {:.1f}% of the window",
                     to_string(p.cause), on(p.where), p.count, ms(p.period_ns), 100 * p.share),
         why, look});
  }
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, idle_cause>,
           std::tuple<std::int64_t, std::int64_t, gap_finding const*>>
      groups;
  for (auto const& g : d.gaps) {
    bool const periodic =
        std::any_of(d.periodic_gaps.begin(), d.periodic_gaps.end(), [&](auto const& p) {
          return p.cause == g.cause && p.where.rank == g.where.rank &&
                 p.where.device == g.where.device && p.where.input == g.where.input;
        });
    if (periodic) continue;
    auto& [n, total, largest] = groups[{g.where.input, g.where.rank, g.where.device, g.cause}];
    ++n;
    total = checked_add(total, g.duration(), "the idle time of a finding");
    if (largest == nullptr) largest = &g;
  }
  for (auto const& [k, v] : groups) {
    auto const& [n, total, largest] = v;
    auto [why, look] = advice(largest->cause);
    // Unknown gaps that traced host rows overlap (for less of their time than nothing does):
    // name that work rather than say no host activity was traced.
    std::string const ops = largest->cause == idle_cause::unknown
                                ? host_ops_of(d, std::get<0>(k), std::get<1>(k), std::get<2>(k))
                                : std::string();
    std::string const unclassified =
        "unclassified host work: " + ops +
        " (traced host rows overlap these gaps but cover less of them than untraced time)";
    if (!ops.empty()) why = unclassified.c_str();
    auto const host = d.host_of(*largest);
    std::string const largest_host =
        host.empty() ? "nothing traced"
                     : std::string(output::without_emit_nvtx_suffixes(d.describe(host[0])->name));
    out.push_back({total,
                   fmt::format("{} {} gap{} on {}, {} in all; the largest {} (host: {})", n,
                               to_string(largest->cause), n == 1 ? "" : "s", on(largest->where),
                               ms(total), ms(largest->duration()), largest_host),
                   why, look});
  }
}

std::string short_name(std::string const& name) {
  return name.size() > 60 ? name.substr(0, 57) + "..." : name;
}

void kernel_findings(diagnosis const& d, std::vector<finding>& out) {
  // The long tail is one finding: names that carry it usually share a cause (shapes, clocks).
  if (!d.long_tail_names.empty()) {
    std::int64_t excess = 0, instances = 0;
    for (auto const& n : d.long_tail_names) excess += n.excess_ns, instances += n.instances;
    auto const& top = d.long_tail_names.front();
    out.push_back(
        {excess,
         fmt::format("{} long-tail kernel instances of {} group{}, {} over their medians; the "
                     "costliest: {}{} ({} instances, median {}, the worst {:.1f}x)",
                     instances, d.long_tail_names.size(), d.long_tail_names.size() == 1 ? "" : "s",
                     ms(excess), short_name(top.name),
                     top.launch.empty() ? std::string() : " [" + top.launch + "]", top.instances,
                     ms(static_cast<std::int64_t>(top.median_ns)), top.worst_ratio),
         "a few slow instances stretch the steps they run in",
         "long_tail and long_tail_names in the JSON: when they ran, what the host did meanwhile; "
         "a group without a launch configuration (none traced) may mix inputs of very different "
         "sizes"});
  }
  // Bursts of one op on one device are one finding (an optimizer's loop repeats every step).
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::string>,
           std::vector<burst_finding const*>>
      groups;
  for (auto const& b : d.bursts)
    groups[{b.where.input, b.where.rank, b.where.device, b.launched_by}].push_back(&b);
  for (auto const& [k, list] : groups) {
    std::int64_t span = 0, kernels = 0;
    for (auto const* b : list) span += b->end_ns - b->start_ns, kernels += b->kernels;
    auto const& first = *list.front();
    out.push_back(
        {span,
         fmt::format("{} burst{} of tiny kernels on {} ({} kernels over {}), launched by {}",
                     list.size(), list.size() == 1 ? "" : "s", on(first.where), kernels, ms(span),
                     first.launched_by.empty() ? "an unknown op" : first.launched_by),
         "launch overhead dominates kernels this short",
         "fuse them: foreach/multi-tensor ops, torch.compile or CUDA graphs"});
  }
}

void job_findings(diagnosis const& d, std::vector<finding>& out) {
  for (auto const& s : d.small_copies)
    out.push_back({s.total_ns,
                   fmt::format("{} small {} copies in {} ({}) on {}, {} bytes", s.copies,
                               s.direction, s.step_name, s.step, on(s.where), s.bytes),
                   "each small copy is a round trip that may synchronise the host",
                   "scalars moved every step: batch them, keep them on the GPU, avoid .item()"});
  for (auto const& s : d.stragglers) {
    std::int64_t steps = 0;
    for (auto const& r : d.ranks)
      if (r.rank == s.rank) steps = r.steps;
    out.push_back(
        {(s.mean_step_ns - s.median_rank_step_ns) * steps,
         fmt::format("rank {} is a straggler: mean step {}, {:.1f}% over the median "
                     "rank's {}{}",
                     s.rank, ms(s.mean_step_ns), 100 * s.excess, ms(s.median_rank_step_ns),
                     s.mean_wait_ns > 0
                         ? fmt::format(" ({} of it waiting in collectives)", ms(s.mean_wait_ns))
                         : std::string()),
         "every collective waits for the slowest rank",
         "that rank's verdict and gaps; its node (clocks, thermals, input imbalance)"});
  }
  for (auto const& l : d.late_arrivals) {
    std::vector<std::string> behind;
    for (auto const& b : l.behind)
      if (behind.size() < 3)
        behind.push_back(
            fmt::format("{} +{}", output::without_emit_nvtx_suffixes(b.name), ms(b.excess_ns())));
    out.push_back(
        {l.wait_caused_ns,
         fmt::format("the other ranks wait for rank {}: it arrives last at {} of its {} "
                     "collectives, {} of waiting in all; the costliest: {} on {}, {} after the "
                     "first rank ({} of waiting); its host before it, longer than the others': "
                     "{}",
                     l.rank, l.last_arrivals, l.collectives, ms(l.wait_caused_ns),
                     short_name(l.name), on(l.where), ms(l.arrival_ns - l.first_arrival_ns),
                     ms(l.worst_wait_caused_ns),
                     behind.empty() ? std::string("no traced op")
                                    : fmt::format("{}", fmt::join(behind, ", "))),
         "a collective ends only when its last rank arrives: the others' waits are this rank's "
         "extra work before it, not slow communication",
         "late_arrivals in the JSON: that rank's host ops before its collectives, its input "
         "pipeline and data balance, its node"});
  }
}

}  // namespace

output::result_table diagnose_findings(diagnosis const& d) {
  std::vector<finding> all;
  gap_findings(d, all);
  kernel_findings(d, all);
  job_findings(d, all);
  std::stable_sort(all.begin(), all.end(),
                   [](finding const& a, finding const& b) { return a.cost_ns > b.cost_ns; });
  output::result_table t;
  t.name = "findings";
  t.title = "Findings, costliest first";
  t.text_empty =
      "(none: no gaps of at least the minimum, no long tail, bursts, small copies, "
      "stragglers or late arrivals)";
  t.views = output::text | output::html;
  t.add("finding", output::value_type::string, "", " ");
  t.rows_per_entry = 3;  // what, why it matters, where to look
  for (std::size_t k = 0; k < all.size(); ++k) {
    t.add_row({fmt::format("{}. {}", k + 1, all[k].what)});
    t.add_row({fmt::format("   why it matters: {}", all[k].why)});
    t.add_row({fmt::format("   where to look: {}", all[k].look)});
  }
  return t;
}

}  // namespace tracesweep
