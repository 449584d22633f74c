// SPDX-License-Identifier: Apache-2.0
#include <tracesweep/fleet/merge.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/results_store.hpp>

namespace tracesweep::fleet {

namespace {

/// The output run that a shard's run goes into: same label and roots; created when absent.
/// Its times widen to cover every shard's; it stays running while any shard's run is.
std::int64_t target_run(results_store& out, run_info const& shard_run) {
  for (auto r : out.runs()) {
    if (r.label != shard_run.label || r.arguments != shard_run.arguments || !r.shard.empty())
      continue;
    r.started_utc = std::min(r.started_utc, shard_run.started_utc);
    r.finished_utc = std::max(r.finished_utc, shard_run.finished_utc);
    if (shard_run.status != "complete") r.status = "running";
    out.update_run(r);
    return r.id;
  }
  auto copy = shard_run;
  copy.shard.clear();
  return out.insert_run(copy);
}

/// Leaves out the traces of `job` whose content `stored` holds (with their devices and gaps);
/// adds the rest to `stored`. Returns how many were left out.
std::int64_t drop_stored(job_record& job, std::unordered_set<std::string>& stored) {
  std::vector<std::int32_t> remap(job.traces.size(), -1);
  std::vector<trace_record> kept;
  for (std::size_t i = 0; i < job.traces.size(); ++i) {
    if (!stored.insert(job.traces[i].content_hash).second) continue;
    remap[i] = static_cast<std::int32_t>(kept.size());
    kept.push_back(std::move(job.traces[i]));
  }
  auto const dropped = static_cast<std::int64_t>(job.traces.size() - kept.size());
  job.traces = std::move(kept);
  auto const gone = [&](auto const& row) { return remap[static_cast<std::size_t>(row.trace)] < 0; };
  std::erase_if(job.devices, gone);
  std::erase_if(job.gaps, gone);
  for (auto& d : job.devices) d.trace = remap[static_cast<std::size_t>(d.trace)];
  for (auto& g : job.gaps) g.trace = remap[static_cast<std::size_t>(g.trace)];
  return dropped;
}

}  // namespace

merge_result merge_stores(std::string const& out_path, std::vector<std::string> const& shards) {
  std::error_code ec;
  for (auto const& s : shards)
    if (std::filesystem::equivalent(s, out_path, ec))
      throw input_error(s, "merge", "a shard is the output database");
  results_store out(out_path);
  merge_result result;
  std::vector<std::pair<std::int64_t, job_record>> jobs;
  for (auto const& path : shards) {
    results_store const shard(path, true);
    for (auto const& run : shard.runs()) {
      auto const target = target_run(out, run);
      ++result.runs;
      for (auto& job : shard.load_jobs(run.id)) jobs.emplace_back(target, std::move(job));
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](auto const& a, auto const& b) {
    return a.first != b.first ? a.first < b.first : a.second.path < b.second.path;
  });
  auto stored = out.stored_hashes();
  for (auto& [run, job] : jobs) {
    result.traces_skipped += drop_stored(job, stored);
    if (job.traces.empty()) {
      ++result.jobs_skipped;
      continue;
    }
    out.write_job(run, job);
    ++result.jobs_written;
  }
  return result;
}

}  // namespace tracesweep::fleet
