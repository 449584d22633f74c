// SPDX-License-Identifier: Apache-2.0
// One job of a fleet scan: read its files (a bad one is recorded and left out), build the model,
// run summary, diagnose and the per-rank kernel statistics, and flatten the answers into rows.
#include <tracesweep/fleet/job_record.hpp>

#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <stdexcept>

#include <tracesweep/analysis/kernel_stats.hpp>
#include <tracesweep/analysis/summary.hpp>
#include <tracesweep/error.hpp>

#include "fleet/finding_details.hpp"

namespace tracesweep::fleet {

namespace fs = std::filesystem;

bool job_record::any_ok() const noexcept {
  return std::any_of(traces.begin(), traces.end(), [](auto const& t) { return t.ok; });
}

std::optional<file_stamp> stamp_of(std::string const& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto const ns = [](timespec const& t) {
    return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
  };
  return file_stamp{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                    static_cast<std::int64_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

trace_record identify(std::string const& path) {
  trace_record t;
  t.path = path;
  t.stamp = stamp_of(path);  // before the hash: a change while hashing shows in a later stamp
  if (!t.stamp) throw input_error(path, "", std::string("cannot read: ") + std::strerror(errno));
  t.size_bytes = t.stamp->size;
  t.mtime_ns = t.stamp->mtime_ns;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "", "cannot open for reading");
  auto* state = XXH3_createState();
  if (!state) throw std::bad_alloc();
  XXH3_128bits_reset(state);
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    XXH3_128bits_update(state, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  bool const failed = in.bad();
  auto const h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  if (failed) throw input_error(path, "", "read failed while hashing");
  std::array<char, 33> hex{};
  std::snprintf(hex.data(), hex.size(), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  t.content_hash = hex.data();
  return t;
}

namespace {

/// The verdict of the most devices; a tie goes to the verdict listed first in `verdict`.
std::string job_verdict(std::vector<verdict_row> const& rows) {
  std::map<verdict, int> votes;
  for (auto const& v : rows)
    if (!v.step) ++votes[v.what];
  std::string out;
  int best = 0;
  for (auto const& [what, n] : votes)
    if (n > best) {
      best = n;
      out = std::string(to_string(what));
    }
  return out;
}

void add_devices(summary const& s, diagnosis const& d, std::vector<std::int32_t> const& trace_of,
                 job_record& job) {
  for (auto const& dev : s.devices) {
    device_record r;
    r.trace = trace_of.at(static_cast<std::size_t>(dev.input));
    r.rank = dev.rank;
    r.device = dev.device;
    r.window_ns = dev.window_ns;
    r.busy_ns = dev.busy_ns;
    r.idle_ns = dev.idle_ns;
    r.utilization = dev.utilization;
    r.kernel_ns = dev.kernel_ns;
    r.memcpy_ns = dev.memcpy_ns;
    r.memset_ns = dev.memset_ns;
    r.communication_ns = dev.communication_ns;
    r.computation_ns = dev.computation_ns;
    r.overlap_ns = dev.overlap_ns;
    r.kernel_count = dev.kernel_count;
    for (auto const& v : d.verdicts) {
      if (v.step || v.where.input != dev.input || v.where.rank != dev.rank ||
          v.where.device != dev.device)
        continue;
      r.verdict = std::string(to_string(v.what));
      r.idle = v.idle;
    }
    job.devices.push_back(std::move(r));
  }
}

void add_kernels(trace_model const& model, backend& be, job_record& job) {
  auto const& strings = model.table().strings();
  for (auto const& k : compute_kernel_stats(model, be, {kernel_grouping::rank, false, {}})) {
    auto const d = derive_stats(k.stats, {});
    kernel_record r;
    r.rank = model.ranks()[k.group];
    r.name = std::string(strings.at(k.name));
    r.calls = static_cast<std::int64_t>(k.stats.count);
    r.total_ns = narrow_sum(k.stats.sum, "the total time of kernel " + r.name);
    r.avg_ns = d.mean;
    r.median_ns = d.median;
    r.min_ns = k.stats.min;
    r.max_ns = k.stats.max;
    r.stddev_ns = d.stddev;
    job.kernels.push_back(std::move(r));
  }
  std::sort(job.kernels.begin(), job.kernels.end(), [](auto const& a, auto const& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.name < b.name;
  });
}

void add_gaps(diagnosis const& d, std::vector<std::int32_t> const& trace_of, job_record& job) {
  for (auto const& g : d.gaps)
    job.gaps.push_back({trace_of.at(static_cast<std::size_t>(g.where.input)), g.where.rank,
                        g.where.device, g.start_ns, g.end_ns, std::string(to_string(g.cause))});
}

void add_ranks(diagnosis const& d, job_record& job) {
  for (auto const& r : d.ranks)
    job.rank_steps.push_back({r.rank, r.steps, r.mean_step_ns, r.utilization});
}

/// Filters what was read, runs the analyses on it and fills the record's result rows.
void analyze_read(event_table& table, analyze_options const& o,
                  std::vector<std::int32_t> const& trace_of, job_record& job) {
  apply_row_filter(table, o.filter);
  auto be = o.make_backend(table, o.share);
  model_options mo;
  mo.comm_pattern = o.comm_pattern;
  mo.threads = o.share.threads;
  trace_model const model(table, mo);
  summary_options so;
  so.min_gap_ns = o.diagnosis.min_gap_ns;
  so.top = 0;
  // One session for the job: the summary and the diagnosis read one device activity.
  job_session const session(model, *be, summary_needs(so) | diagnose_needs(o.diagnosis));
  auto const s = compute_summary(session, so);
  auto const d = diagnose(session, o.diagnosis);
  job.ranks = static_cast<std::int32_t>(model.ranks().size());
  job.verdict = job_verdict(d.verdicts);
  add_devices(s, d, trace_of, job);
  add_kernels(model, *be, job);
  add_gaps(d, trace_of, job);
  add_ranks(d, job);
  job.findings = finding_rows(d);
}

/// Marks every trace of the job that was read with `why` (the analysis of them all failed).
void fail_read_traces(job_record& job, std::string const& why) {
  for (auto& t : job.traces)
    if (t.ok) {
      t.ok = false;
      t.error = t.path + ": analysis: " + why;
    }
  job.devices.clear();
  job.kernels.clear();
  job.gaps.clear();
  job.findings.clear();
  job.rank_steps.clear();
  job.verdict.clear();
}

}  // namespace

job_record analyze_job(job_spec const& spec, std::vector<trace_record> traces,
                       analyze_options const& o) {
  job_record job;
  job.path = spec.path;
  job.name = spec.name;
  job.traces = std::move(traces);
  std::vector<std::string> paths;
  for (auto const& t : job.traces) paths.push_back(t.path);
  event_table table;
  auto reading = o.reading;
  reading.launch_shapes = true;  // the diagnosis groups long tails by launch configuration
  for (auto const& e : read_inputs(paths, table, reading, o.keep_going))
    for (auto& t : job.traces)
      if (t.path == e.path() || (e.path().empty() && t.ok)) {
        t.ok = false;
        t.error = e.what();
      }
  std::vector<std::int32_t> trace_of;
  for (auto const& info : table.inputs()) {
    auto const it = std::find_if(job.traces.begin(), job.traces.end(),
                                 [&](auto const& t) { return t.path == info.path; });
    if (it == job.traces.end()) throw std::logic_error("an input that is not a trace of the job");
    it->format = info.format;
    it->ranks = info.ranks;
    it->events = info.events;
    trace_of.push_back(static_cast<std::int32_t>(it - job.traces.begin()));
  }
  if (table.inputs().empty()) return job;
  try {
    analyze_read(table, o, trace_of, job);
  } catch (std::overflow_error const& e) {
    fail_read_traces(job, std::string("arithmetic overflow: ") + e.what());
  } catch (std::bad_alloc const&) {
    fail_read_traces(job, "out of memory");
  } catch (input_error const& e) {
    fail_read_traces(job, e.what());
  }
  return job;
}

}  // namespace tracesweep::fleet
