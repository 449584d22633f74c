// SPDX-License-Identifier: Apache-2.0
// The fleet scan: find jobs, take the store's scan lock, identify their files, drop what is
// stored, analyze the rest in parallel within the memory budget, and store each job in one
// transaction unless one of its files changed since it was identified.
#include <tracesweep/fleet/scan.hpp>
#include <tracesweep/task_threads.hpp>

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_set>

#include <tbb/task_arena.h>
#include <xxhash.h>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/results_store.hpp>

#include "fleet/scan_lock.hpp"

namespace tracesweep::fleet {

namespace fs = std::filesystem;

std::uint64_t estimate_job_memory(std::vector<trace_record> const& traces) {
  std::uint64_t total = std::uint64_t{64} << 20;
  for (auto const& t : traces) {
    auto const size = static_cast<std::uint64_t>(std::max<std::int64_t>(0, t.size_bytes));
    bool const gz = t.path.ends_with(".gz");
    bool const json = gz || t.path.ends_with(".json");
    total += gz ? size * 12 : json ? size : size * 2;
  }
  return total;
}

namespace {

/// Jobs in flight hold their estimates against the budget; one job always may run.
class memory_budget {
 public:
  explicit memory_budget(std::uint64_t limit) : _limit(limit) {}
  void acquire(std::uint64_t bytes) {
    std::unique_lock lock(_m);
    _cv.wait(lock, [&] { return _held == 0 || _held + bytes <= _limit; });
    _held += bytes;
  }
  void release(std::uint64_t bytes) {
    {
      std::lock_guard lock(_m);
      _held -= bytes;
    }
    _cv.notify_all();
  }

 private:
  std::uint64_t _limit;
  std::uint64_t _held = 0;
  std::mutex _m;
  std::condition_variable _cv;
};

std::uint64_t physical_memory() {
  auto const pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : std::uint64_t{8} << 30;
}

/// The bytes of `total` the jobs in flight may hold: what the workers keep outside their jobs
/// (host_bytes_per_worker each) is taken first; at least 1, so one job always runs.
std::uint64_t jobs_memory(std::uint64_t total, unsigned workers, scan_options const& o) {
  std::uint64_t const kept = std::uint64_t{workers} * o.host_bytes_per_worker;
  return total > kept ? total - kept : 1;
}

/// Workers for `items` items of work: as many as asked for, at most one per item, at least one.
unsigned workers_for(std::size_t items, unsigned wanted) {
  return static_cast<unsigned>(std::clamp<std::size_t>(items, 1, std::max(1u, wanted)));
}

/// How many of `wanted` threads (the caller's included) the system starts now: probe threads,
/// each kept until all have started or one failed. The arena gets no more, so TBB is not asked
/// for workers the system refuses (it cannot report that as an error).
unsigned startable_threads(unsigned wanted) {
  if (wanted <= 1) return 1;
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> probes;
  try {
    for (unsigned t = 1; t < wanted; ++t)
      probes.emplace_back([&] {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return release; });
      });
  } catch (std::system_error const&) {  // no more threads: fewer workers
  }
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_all();
  for (auto& t : probes) t.join();
  return static_cast<unsigned>(probes.size()) + 1;
}

/// Runs `work(i)` for i in [0, n) on up to `threads` workers of a TBB arena (run_workers; at most
/// one per item, fewer when the system starts no more threads: the ones running share the
/// work). Each item runs isolated, so a worker waiting inside a job never picks up another job.
/// The first exception stops the others (they finish the item in hand) and is rethrown.
template <class Work>
void parallel_for(std::size_t n, unsigned threads, Work&& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr first;
  std::mutex m;
  run_workers(startable_threads(workers_for(n, threads)), [&](unsigned) {
    for (std::size_t i; !stop && (i = next++) < n;) {
      try {
        tbb::this_task_arena::isolate([&] { work(i); });
      } catch (...) {
        std::lock_guard lock(m);
        if (!first) first = std::current_exception();
        stop = true;
      }
    }
  });
  if (first) std::rethrow_exception(first);
}

/// A file that cannot even be read: recorded with its error, under a hash of its path.
trace_record unreadable(std::string const& path, std::string const& why) {
  trace_record t;
  t.path = path;
  t.ok = false;
  t.error = why;
  t.content_hash = "path:" + std::to_string(XXH3_64bits(path.data(), path.size()));
  t.stamp = stamp_of(path);
  return t;
}

/// The test hook (TRACESWEEP_TEST_SCAN_PAUSE=DIR): at `stage` ("identified": every file hashed,
/// no run open yet; "analyzed": a job analyzed, not yet checked and stored) the scan waits while
/// the file DIR/STAGE exists, after creating DIR/STAGE.reached. Tests change files and start
/// other scans meanwhile.
void pause_for_test(std::string const& stage) {
  static char const* const dir = std::getenv("TRACESWEEP_TEST_SCAN_PAUSE");
  if (!dir || !fs::exists(fs::path(dir) / stage)) return;
  std::ofstream(fs::path(dir) / (stage + ".reached")).put('\n');
  while (fs::exists(fs::path(dir) / stage))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

/// The files of `job` that are no longer what was identified (rewritten, truncated or replaced
/// since): its answers may mix contents, so the job is not stored.
std::vector<std::string> changed_files(job_record const& job) {
  std::vector<std::string> out;
  for (auto const& t : job.traces)
    if (stamp_of(t.path) != t.stamp) out.push_back(t.path);
  return out;
}

std::string arguments_of(std::vector<std::string> const& roots) {
  std::vector<std::string> canonical;
  for (auto const& r : roots) {
    std::error_code ec;
    auto c = fs::weakly_canonical(r, ec);
    canonical.push_back((ec ? fs::absolute(r) : c).lexically_normal().string());
  }
  std::sort(canonical.begin(), canonical.end());
  std::string out;
  for (auto const& c : canonical) out += (out.empty() ? "" : "\n") + c;
  return out;
}

struct planned_job {
  job_spec const* spec = nullptr;
  std::vector<trace_record> traces;  ///< the files still to store
};

/// Identifies every file (in parallel), then keeps per job, in job order, the files whose
/// content is neither stored nor claimed by an earlier job.
std::vector<planned_job> plan(std::vector<job_spec> const& jobs,
                              std::unordered_set<std::string> stored, unsigned threads,
                              scan_progress& progress, scan_result& result) {
  std::vector<std::pair<std::size_t, std::string>> files;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (auto const& f : jobs[j].files) files.emplace_back(j, f);
  std::vector<trace_record> ids(files.size());
  parallel_for(files.size(), threads, [&](std::size_t i) {
    try {
      ids[i] = identify(files[i].second);
    } catch (input_error const& e) {
      ids[i] = unreadable(files[i].second, e.what());
    }
  });
  std::vector<planned_job> out(jobs.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto& job = out[files[i].first];
    job.spec = &jobs[files[i].first];
    if (!stored.insert(ids[i].content_hash).second) {
      ++result.traces_skipped;
      ++progress.files_skipped;
      continue;
    }
    progress.files_total += 1;
    progress.bytes_total += ids[i].size_bytes;
    job.traces.push_back(std::move(ids[i]));
  }
  std::erase_if(out, [&](planned_job const& p) {
    bool const empty = p.traces.empty();
    result.jobs_skipped += empty ? 1 : 0;
    return empty;
  });
  return out;
}

}  // namespace

namespace {

/// What the scan's workers share: the store, the run, the counters and the error sink.
struct scan_state {
  results_store& store;
  std::int64_t run_id;
  scan_progress& progress;
  scan_result& result;
  std::function<void(std::string const&)> const& on_error;
  std::mutex counting;
};

/// Counts a stored job's traces and reports its failed ones.
void count_stored(scan_state& s, job_record const& job) {
  std::lock_guard lock(s.counting);
  ++s.result.jobs_written;
  for (auto const& t : job.traces) {
    s.progress.files_done += 1;
    s.progress.bytes_done += t.size_bytes;
    if (t.ok) {
      ++s.result.traces_ok;
      continue;
    }
    ++s.result.traces_failed;
    ++s.progress.files_failed;
    s.on_error(t.error);
  }
}

/// Counts a job left out because `changed` files of it changed, and reports each of them.
void count_changed(scan_state& s, job_record const& job, std::vector<std::string> const& changed) {
  std::lock_guard lock(s.counting);
  for (auto const& t : job.traces) {
    s.progress.files_done += 1;
    s.progress.bytes_done += t.size_bytes;
  }
  s.progress.files_failed += static_cast<std::int64_t>(changed.size());
  s.result.traces_changed += static_cast<std::int64_t>(changed.size());
  for (auto const& path : changed)
    s.on_error(path +
               ": changed while it was scanned (its size, times or file differ from when it was "
               "identified): not stored, nor the rest of its job; the next scan reads it again");
}

/// Stores the analyzed job, unless a file of it changed since it was identified.
void store_job(scan_state& s, job_record const& job) {
  pause_for_test("analyzed");
  if (auto const changed = changed_files(job); !changed.empty())
    return count_changed(s, job, changed);
  s.store.write_job(s.run_id, job);
  count_stored(s, job);
}

}  // namespace

scan_result run_scan(scan_options const& o, scan_progress& progress,
                     std::function<void(std::string const&)> const& on_error) {
  auto const db = fs::absolute(o.db_path).string();
  auto jobs = find_jobs(o.roots, {db, db + "-wal", db + "-shm", db + "-journal"});
  if (o.part) std::erase_if(jobs, [&](auto const& j) { return !in_shard(j.path, *o.part); });
  results_store store(o.db_path);
  scan_lock lock(store.handle(), o.label, o.wait);
  auto const shard_text =
      o.part ? std::to_string(o.part->index) + "/" + std::to_string(o.part->count) : "";
  auto const arguments = arguments_of(o.roots);
  scan_result result;
  unsigned const hw = resolve_threads(0);
  unsigned const wanted = resolve_threads(o.jobs);
  auto planned = plan(jobs, store.stored_hashes(), wanted, progress, result);
  progress.hashing = false;
  pause_for_test("identified");
  // A scan with nothing new opens no run, unless it completes one a crash left with jobs in it.
  auto const unfinished = store.unfinished_run(o.label, arguments, shard_text);
  bool const resume = unfinished && (!planned.empty() || store.job_count(unfinished->id) > 0);
  if (planned.empty() && !resume) return result;
  auto const run = store.begin_run(o.label, arguments, shard_text);
  lock.hold_run(run.id);
  result.run_id = run.id;
  result.resumed = resume;

  unsigned const workers = workers_for(planned.size(), wanted);
  memory_budget budget(
      jobs_memory(o.memory_limit ? o.memory_limit : physical_memory() / 2, workers, o));
  auto analysis = o.analysis;
  analysis.reading.threads = std::max(1u, hw / workers);
  // The device memory and the threads are split among the workers started, not those asked for.
  analysis.share = {std::max(1u, hw / workers), workers};
  scan_state state{store, run.id, progress, result, on_error, {}};
  parallel_for(planned.size(), workers, [&](std::size_t i) {
    auto& p = planned[i];
    auto const bytes = estimate_job_memory(p.traces);
    budget.acquire(bytes);
    job_record job;
    try {
      job = analyze_job(*p.spec, std::move(p.traces), analysis);
    } catch (...) {
      budget.release(bytes);
      throw;
    }
    budget.release(bytes);
    store_job(state, job);
  });
  store.finish_run(run.id);
  return result;
}

}  // namespace tracesweep::fleet
