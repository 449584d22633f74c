// SPDX-License-Identifier: Apache-2.0
// A fleet scan: every job under some directories (or one shard of them) analyzed with summary
// and diagnose, in parallel across jobs within a memory budget, each job written to the results
// store in one transaction, one scan writing a store at a time. Traces whose content is already
// stored ok are skipped, so running the same scan again after a crash completes the run.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/fleet/job_record.hpp>
#include <tracesweep/fleet/jobs.hpp>

namespace tracesweep::fleet {

struct scan_options {
  std::vector<std::string> roots;
  std::string db_path;
  unsigned jobs = 0;  ///< jobs analyzed at once, as resolve_threads takes a thread count
  std::optional<shard> part;
  std::string label;
  /// Bytes the jobs in flight may take together, by estimate; 0 = half the physical memory. A
  /// job estimated above it runs alone.
  std::uint64_t memory_limit = 0;
  /// Host bytes each worker keeps outside its jobs (the CUDA backend's pinned staging), taken
  /// from memory_limit before jobs are admitted.
  std::uint64_t host_bytes_per_worker = 0;
  /// How each job is analyzed (reading.threads is set per job: hardware threads / jobs).
  analyze_options analysis;
  /// How long to wait for another scan writing the store before giving up.
  std::chrono::milliseconds wait{5000};
};

/// Counters a scan updates as it goes, for a progress display (read them from any thread).
struct scan_progress {
  std::atomic<std::int64_t> files_total{0}, bytes_total{0};
  std::atomic<std::int64_t> files_done{0}, bytes_done{0};
  std::atomic<std::int64_t> files_failed{0}, files_skipped{0};
  std::atomic<bool> hashing{true};  ///< still identifying files (before any analysis)
};

struct scan_result {
  std::int64_t run_id = 0;  ///< 0: nothing new, no run opened
  bool resumed = false;
  std::int64_t jobs_written = 0, jobs_skipped = 0;
  std::int64_t traces_ok = 0, traces_failed = 0, traces_skipped = 0;
  /// Files that changed while they were scanned: their jobs are not stored (the next scan reads
  /// them again).
  std::int64_t traces_changed = 0;
};

/// Runs the scan. `on_error` receives the one-line error of each trace that failed, as it is
/// recorded, and of each file that changed while it was scanned. Throws input_error when a root
/// cannot be listed, the database cannot be written (whatever was committed stays; the run is
/// marked interrupted) or another scan holds it for longer than `wait`.
scan_result run_scan(scan_options const& options, scan_progress& progress,
                     std::function<void(std::string const&)> const& on_error);

/// Estimated peak memory of analyzing one job: per file its size times the expansion of its
/// format (gzip JSON inflates, the event table is smaller than JSON text), plus a fixed part.
[[nodiscard]] std::uint64_t estimate_job_memory(std::vector<trace_record> const& traces);

}  // namespace tracesweep::fleet
