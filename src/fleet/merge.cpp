// SPDX-License-Identifier: Apache-2.0
// Merging shard databases: into a copy of OUT (or a new database) beside it, renamed over OUT
// only when every shard was merged, so a failed merge leaves OUT as it was.
#include <tracesweep/fleet/merge.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/results_store.hpp>

#include "fleet/sqlite_handle.hpp"
#include "fleet/store_schema.hpp"

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

/// The database a merge writes before it becomes OUT: removed (with its -wal and -shm) unless
/// kept.
class temporary_database {
 public:
  explicit temporary_database(std::string const& out)
      : _path(out + ".merging-" + std::to_string(::getpid())) {
    remove_files();
  }
  ~temporary_database() {
    if (!_kept) remove_files();
  }
  temporary_database(temporary_database const&) = delete;
  temporary_database& operator=(temporary_database const&) = delete;
  [[nodiscard]] std::string const& path() const noexcept { return _path; }
  /// Renames it over `out`.
  void rename_to(std::string const& out) {
    std::error_code ec;
    std::filesystem::rename(_path, out, ec);
    if (ec) throw input_error(out, "merge", "cannot replace it: " + ec.message());
    _kept = true;
  }

 private:
  void remove_files() const {
    std::error_code ec;
    for (auto const* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(_path + suffix, ec);
  }
  std::string _path;
  bool _kept = false;
};

/// Copies the results database at `out`, when there is one, to `copy` (checked first: a
/// version this build does not know is refused naming `out`).
void copy_existing(std::string const& out, std::string const& copy) {
  if (!std::filesystem::exists(out)) return;
  sqlite_handle db(out, false);
  (void)check_schema_version(db);
  sql_statement q(db, "VACUUM INTO ?");
  q.bind(1, copy);
  q.run();
}

merge_result merge_into(results_store& out, std::vector<std::string> const& shards) {
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

}  // namespace

merge_result merge_stores(std::string const& out_path, std::vector<std::string> const& shards) {
  std::error_code ec;
  for (auto const& s : shards)
    if (std::filesystem::equivalent(s, out_path, ec))
      throw input_error(s, "merge", "a shard is the output database");
  temporary_database merged(out_path);
  copy_existing(out_path, merged.path());
  merge_result result;
  {
    results_store out(merged.path());
    result = merge_into(out, shards);
  }  // (closed: its WAL is checkpointed into the file)
  merged.rename_to(out_path);
  return result;
}

}  // namespace tracesweep::fleet
