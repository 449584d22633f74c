// SPDX-License-Identifier: Apache-2.0
// What a fleet scan keeps of one job: its trace files (identity, content hash, how each was
// read) and the answers of summary and diagnose, flattened into rows as the results store holds
// them. analyze_job computes it; the store writes and reads it; diff compares two of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/analysis/diagnose.hpp>
#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/fleet/jobs.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/row_filter.hpp>

namespace tracesweep::fleet {

/// What tells a file's content apart without reading it: device, inode, size, modification and
/// status-change times (ns). A file rewritten in place, truncated, or replaced by another has
/// another stamp, even when its modification time is set back.
struct file_stamp {
  std::uint64_t device = 0, inode = 0;
  std::int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
  bool operator==(file_stamp const&) const = default;
};

/// The stamp of the file at `path`; nullopt when it cannot be read.
[[nodiscard]] std::optional<file_stamp> stamp_of(std::string const& path);

struct trace_record {
  std::string path;
  std::int64_t size_bytes = 0;
  std::int64_t mtime_ns = 0;
  std::string content_hash;  ///< XXH3-128 of the whole file, 32 hex digits
  std::string format;        ///< the reader's format ("nsys-sqlite", "kineto-json", …); "" unread
  std::vector<std::int32_t> ranks;
  std::int64_t events = 0;
  bool ok = true;
  std::string error;  ///< the one-line error when not ok
  /// The file when it was identified (before its hash was taken); not stored.
  std::optional<file_stamp> stamp;
};

/// One device of one trace over the whole trace: summary activity and diagnose's verdict.
struct device_record {
  std::int32_t trace = 0;  ///< index into job_record::traces
  std::int32_t rank = 0, device = 0;
  std::int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;
  double utilization = 0;
  std::int64_t kernel_ns = 0, memcpy_ns = 0, memset_ns = 0;
  std::int64_t communication_ns = 0, computation_ns = 0, overlap_ns = 0;
  std::int64_t kernel_count = 0;
  std::string verdict;
  idle_by_cause idle{};  ///< idle in examined gaps, by cause (diagnose)
};

/// Duration statistics of one kernel name on one rank (ns).
struct kernel_record {
  std::int32_t rank = 0;
  std::string name;
  std::int64_t calls = 0, total_ns = 0;
  double avg_ns = 0, median_ns = 0;
  std::int64_t min_ns = 0, max_ns = 0;
  double stddev_ns = 0;
};

struct gap_record {
  std::int32_t trace = 0;
  std::int32_t rank = 0, device = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::string cause;
};

/// A diagnose finding: its kind, where (-1: not tied to one), and its numbers as a JSON object.
struct finding_record {
  std::int32_t rank = -1, device = -1;
  std::string kind;
  std::string detail_json;
};

/// Step time of one rank (no steps: steps = 0).
struct rank_record {
  std::int32_t rank = 0;
  std::int64_t steps = 0, mean_step_ns = 0;
  double utilization = 0;
};

struct job_record {
  std::string path, name;
  std::vector<trace_record> traces;
  std::int32_t ranks = 0;
  std::string verdict;  ///< the verdict of most devices (ties: the more severe); "" no device
  std::vector<device_record> devices;
  std::vector<kernel_record> kernels;
  std::vector<gap_record> gaps;
  std::vector<finding_record> findings;
  std::vector<rank_record> rank_steps;
  [[nodiscard]] bool any_ok() const noexcept;
};

/// The identity of a file: its stamp, size, modification time and XXH3-128 of its bytes. Throws
/// input_error when it cannot be read.
[[nodiscard]] trace_record identify(std::string const& path);

/// What one job's backend may use of the process: its threads, and the backends in use at once.
struct backend_share {
  unsigned threads = 0;  ///< 0: every hardware thread
  unsigned workers = 1;
};

struct analyze_options {
  read_options reading;
  std::string comm_pattern = "nccl|rccl";
  diagnose_options diagnosis;  ///< its `top` is the gaps kept per job
  /// Applied to each job's table before the analyses (a filter that matches nothing in a job,
  /// such as an absent NVTX range, marks the job's traces with its error).
  row_filter filter;
  /// false: the first file that fails throws its input_error instead of being recorded.
  bool keep_going = true;
  /// Threads of each job's backend and backends in use at once (each CUDA backend gets
  /// 1/workers of the device memory): a scan sets them from the workers it actually starts.
  backend_share share;
  /// The backend for a job's table (the caller's choice: CPU or CUDA), given `share`.
  std::function<std::unique_ptr<backend>(event_table const&, backend_share)> make_backend;
};

/// Reads `traces` (identified already) as one job and fills the record: each file that fails
/// is marked with its error and left out; the rest are analyzed together. Failures of the
/// analysis itself (overflow, out of memory) mark every trace of the job.
[[nodiscard]] job_record analyze_job(job_spec const& job, std::vector<trace_record> traces,
                                     analyze_options const& options);

}  // namespace tracesweep::fleet
