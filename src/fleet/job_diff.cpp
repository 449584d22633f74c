// SPDX-License-Identifier: Apache-2.0
// diff_jobs: the run-over-run comparison as result tables, and the regressions in it.
#include <tracesweep/fleet/job_diff.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "fleet/rank_pairing.hpp"

namespace tracesweep::fleet {

namespace {

using enum output::value_type;
using output::cell;

/// (after − before) / before; infinite when before is 0 and after is not (new from nothing).
double change_value(double before, double after) {
  return before == 0 ? (after == 0 ? 0.0 : INFINITY) : (after - before) / before;
}
/// The same as a cell: null for new from nothing.
cell change(double before, double after) {
  double const v = change_value(before, after);
  return std::isinf(v) ? cell() : cell(v);
}

output::result_table table(std::string name, std::string title) {
  output::result_table t;
  t.name = std::move(name);
  t.title = std::move(title);
  t.text_empty = "(none)";
  return t;
}
void add_ns(output::result_table& t, std::string name, std::string label) {
  auto& c = t.add(std::move(name), integer, "ns", std::move(label));
  c.text_unit = "ms";
  c.decimals = 3;
}
void add_share(output::result_table& t, std::string name, std::string label, int decimals = 1) {
  auto& c = t.add(std::move(name), real, "fraction", std::move(label));
  c.text_unit = std::string(1, '%');  // (GCC 12 warns falsely on = "%" here)
  c.decimals = decimals;
}

struct context {
  diff_options const& o;
  diff_result& out;
  double threshold() const { return o.threshold_percent / 100; }
  bool worse(double relative) const {
    return o.fail_above_percent && relative > *o.fail_above_percent / 100;
  }
  void regression(std::string line) { out.regressions.push_back(std::move(line)); }
};

/// "JOB: " before a regression line, or nothing for the unnamed job of a trace diff.
std::string prefix(std::string const& job) {
  return job.empty() ? job : job + ": ";
}

std::string pct(double v) {
  return std::isinf(v) ? "new" : fmt::format("{:+.1f}%", v * 100);
}

// ---- kernels ----------------------------------------------------------------------------

std::map<std::int32_t, std::int64_t> rank_kernel_totals(job_record const* j) {
  std::map<std::int32_t, std::int64_t> out;
  if (j)
    for (auto const& k : j->kernels) out[k.rank] += k.total_ns;
  return out;
}

void diff_kernels(std::string const& job, job_record const* a, job_record const* b, context& cx,
                  output::result_table& t) {
  std::map<std::pair<std::int32_t, std::string>,
           std::pair<kernel_record const*, kernel_record const*>>
      by_key;
  if (a)
    for (auto const& k : a->kernels) by_key[{k.rank, k.name}].first = &k;
  if (b)
    for (auto const& k : b->kernels) by_key[{k.rank, k.name}].second = &k;
  auto const ta = rank_kernel_totals(a), tb = rank_kernel_totals(b);
  for (auto const& [key, pair] : by_key) {
    auto const [ka, kb] = pair;
    std::string status;
    double dt = 0, dm = 0;
    if (!ka) status = "new";
    if (!kb) status = "vanished";
    if (ka && kb) {
      dt = change_value(double(ka->total_ns), double(kb->total_ns));
      dm = change_value(ka->median_ns, kb->median_ns);
      if (std::max(std::abs(dt), std::abs(dm)) <= cx.threshold()) continue;
      status = dt + dm > 0 ? "slower" : "faster";
    }
    auto const rank = key.first;  // (a lambda may not name a structured binding in clang 14)
    auto const share = [&](auto const& totals, kernel_record const* k) {
      auto const it = totals.find(rank);
      return k && it != totals.end() && it->second > 0 ? double(k->total_ns) / double(it->second)
                                                       : 0.0;
    };
    bool const significant = std::max(share(ta, ka), share(tb, kb)) >= cx.o.min_kernel_share;
    bool const regression = status == "slower" && significant && (cx.worse(dt) || cx.worse(dm));
    if (regression)
      cx.regression(fmt::format("{}rank {}: kernel {} slower: total {}, median {}", prefix(job),
                                key.first, key.second, pct(dt), pct(dm)));
    t.add_row({job, std::int64_t{key.first}, key.second, status, ka ? cell(ka->calls) : cell(),
               kb ? cell(kb->calls) : cell(), ka ? cell(ka->total_ns) : cell(),
               kb ? cell(kb->total_ns) : cell(),
               ka && kb ? change(double(ka->total_ns), double(kb->total_ns)) : cell(),
               ka ? cell(ka->median_ns) : cell(), kb ? cell(kb->median_ns) : cell(),
               ka && kb ? change(ka->median_ns, kb->median_ns) : cell(), regression});
  }
}

output::result_table kernels_table() {
  auto t = table("kernels", "Kernels that changed (per rank)");
  t.add("job", string);
  t.add("rank", integer);
  t.add("name", string).symbol = true;
  t.add("status", string);
  t.add("calls_before", integer);
  t.add("calls_after", integer);
  add_ns(t, "total_before_ns", "total before (ms)");
  add_ns(t, "total_after_ns", "total after (ms)");
  add_share(t, "total_change", "total Δ (%)");
  auto& mb = t.add("median_before_ns", real, "ns", "median before (us)");
  mb.text_unit = "us";
  mb.decimals = 3;
  auto& ma = t.add("median_after_ns", real, "ns", "median after (us)");
  ma.text_unit = "us";
  ma.decimals = 3;
  add_share(t, "median_change", "median Δ (%)");
  t.add("regression", boolean);
  return t;
}

// ---- devices, idle, steps ---------------------------------------------------------------

void diff_devices(std::string const& job, job_record const* a, job_record const* b, context& cx,
                  output::result_table& t) {
  std::map<std::pair<std::int32_t, std::int32_t>,
           std::pair<device_record const*, device_record const*>>
      by_key;
  if (a)
    for (auto const& d : a->devices) by_key[{d.rank, d.device}].first = &d;
  if (b)
    for (auto const& d : b->devices) by_key[{d.rank, d.device}].second = &d;
  for (auto const& [key, pair] : by_key) {
    auto const [da, db] = pair;
    double const rel = da && db ? change_value(da->utilization, db->utilization) : 0;
    if (da && db && std::abs(rel) <= cx.threshold()) continue;
    bool const regression = da && db && cx.worse(-rel);
    if (regression)
      cx.regression(fmt::format("{}rank {} device {}: utilization {:.1f}% -> {:.1f}% ({})",
                                prefix(job), key.first, key.second, da->utilization * 100,
                                db->utilization * 100, pct(rel)));
    t.add_row({job, std::int64_t{key.first}, std::int64_t{key.second},
               da ? cell(da->utilization) : cell(), db ? cell(db->utilization) : cell(),
               da && db ? change(da->utilization, db->utilization) : cell(),
               da ? cell(da->busy_ns) : cell(), db ? cell(db->busy_ns) : cell(), regression});
  }
}

output::result_table devices_table() {
  auto t = table("devices", "Devices whose utilization changed");
  t.add("job", string);
  t.add("rank", integer);
  t.add("device", integer);
  add_share(t, "utilization_before", "util before (%)");
  add_share(t, "utilization_after", "util after (%)");
  add_share(t, "change", "Δ (%)");
  add_ns(t, "busy_before_ns", "busy before (ms)");
  add_ns(t, "busy_after_ns", "busy after (ms)");
  t.add("regression", boolean);
  return t;
}

idle_by_cause idle_of(job_record const* j) {
  idle_by_cause out{};
  if (j)
    for (auto const& d : j->devices)
      for (std::size_t c = 0; c < out.size(); ++c) out[c] += d.idle[c];
  return out;
}

void diff_idle(std::string const& job, job_record const* a, job_record const* b, context& cx,
               output::result_table& t) {
  auto const ia = idle_of(a), ib = idle_of(b);
  for (std::size_t c = 0; c < ia.size(); ++c) {
    if (ia[c] == 0 && ib[c] == 0) continue;
    if (std::abs(change_value(double(ia[c]), double(ib[c]))) <= cx.threshold()) continue;
    t.add_row({job, std::string(to_string(static_cast<idle_cause>(c))), a ? cell(ia[c]) : cell(),
               b ? cell(ib[c]) : cell(), change(double(ia[c]), double(ib[c]))});
  }
}

output::result_table idle_table() {
  auto t = table("idle_by_cause", "Idle time by cause that changed");
  t.add("job", string);
  t.add("cause", string);
  add_ns(t, "idle_before_ns", "before (ms)");
  add_ns(t, "idle_after_ns", "after (ms)");
  add_share(t, "change", "Δ (%)");
  return t;
}

void diff_steps(std::string const& job, job_record const* a, job_record const* b, context& cx,
                output::result_table& t) {
  std::map<std::int32_t, std::pair<rank_record const*, rank_record const*>> by_rank;
  if (a)
    for (auto const& r : a->rank_steps) by_rank[r.rank].first = &r;
  if (b)
    for (auto const& r : b->rank_steps) by_rank[r.rank].second = &r;
  for (auto const& [rank, pair] : by_rank) {
    auto const [ra, rb] = pair;
    bool const both = ra && rb && ra->steps > 0 && rb->steps > 0;
    if (!both) continue;
    double const rel = change_value(double(ra->mean_step_ns), double(rb->mean_step_ns));
    if (std::abs(rel) <= cx.threshold()) continue;
    bool const regression = cx.worse(rel);
    if (regression)
      cx.regression(fmt::format("{}rank {}: mean step time {}", prefix(job), rank, pct(rel)));
    t.add_row({job, std::int64_t{rank}, ra->mean_step_ns, rb->mean_step_ns,
               change(double(ra->mean_step_ns), double(rb->mean_step_ns)), regression});
  }
}

output::result_table steps_table() {
  auto t = table("steps", "Mean step time per rank that changed");
  t.add("job", string);
  t.add("rank", integer);
  add_ns(t, "mean_step_before_ns", "before (ms)");
  add_ns(t, "mean_step_after_ns", "after (ms)");
  add_share(t, "change", "Δ (%)");
  t.add("regression", boolean);
  return t;
}

}  // namespace

diff_result diff_jobs(std::vector<job_record> const& before, std::vector<job_record> const& after,
                      diff_options const& o) {
  diff_result out;
  context cx{o, out};
  std::map<std::string, std::pair<job_record const*, job_record const*>> by_name;
  for (auto const& j : before) by_name[j.name].first = &j;
  for (auto const& j : after) by_name[j.name].second = &j;
  auto jobs = table("jobs", "Jobs");
  jobs.add("job", string);
  jobs.add("status", string);
  jobs.add("verdict_before", string);
  jobs.add("verdict_after", string);
  auto kernels = kernels_table(), devices = devices_table(), idle = idle_table(),
       steps = steps_table();
  for (auto const& [name, pair] : by_name) {
    auto const [a, b] = pair;
    jobs.add_row({name,
                  std::string(a && b ? "both"
                              : a    ? "only before"
                                     : "only after"),
                  a ? cell(a->verdict) : cell(), b ? cell(b->verdict) : cell()});
    if (!a || !b) continue;
    std::string note;
    auto const paired = pair_ranks(*a, *b, o.pair_ranks, note);
    if (!note.empty()) out.notes.push_back(prefix(name) + note);
    diff_kernels(name, a, &paired, cx, kernels);
    diff_devices(name, a, &paired, cx, devices);
    diff_idle(name, a, &paired, cx, idle);
    diff_steps(name, a, &paired, cx, steps);
  }
  auto regressions =
      table("regressions", o.fail_above_percent
                               ? fmt::format("Regressions above {}%", *o.fail_above_percent)
                               : "Regressions (none checked: no --fail-above)");
  regressions.add("regression", string);
  for (auto const& r : out.regressions) regressions.add_row({r});
  for (auto* t : {&jobs, &kernels, &devices, &idle, &steps, &regressions})
    out.tables.tables.push_back(std::move(*t));
  return out;
}

}  // namespace tracesweep::fleet
