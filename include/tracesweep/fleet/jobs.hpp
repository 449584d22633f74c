// SPDX-License-Identifier: Apache-2.0
// Fleet scans, step one: the traces under some directories, grouped into jobs. A job is the set
// of rank files of one run: files of one directory whose names differ only in a rank number
// ("rank-3", "rank_3", "worker3", "proc3", "gpu3", "node3", or a name that is only a number).
// A file without such a number is a job of its own. Sharding splits jobs, never a job's files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracesweep::fleet {

/// One job: where it is, its name (stable across nights: the path under the directory it was
/// found in, the rank number replaced by '*') and its files, sorted by path.
struct job_spec {
  std::string path;  ///< the directory's path joined with the name pattern: unique per job
  std::string name;
  std::vector<std::string> files;
};

/// The jobs of every trace file under `roots` (directories searched recursively, files taken as
/// they are; the trace files `expand_inputs` takes), sorted by path. Files in `exclude` (the
/// results database and its -wal/-shm files) are left out. Throws input_error for a root that
/// does not exist or holds no trace file.
[[nodiscard]] std::vector<job_spec> find_jobs(std::vector<std::string> const& roots,
                                              std::vector<std::string> const& exclude = {});

/// The job pattern of a file name: the name with its rank number replaced by '*', or the name
/// itself when it carries none.
[[nodiscard]] std::string rank_pattern(std::string const& file_name);

/// A shard: K of N, 0 ≤ K < N.
struct shard {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
};

/// Parses "K/N"; throws std::invalid_argument saying what is wrong.
[[nodiscard]] shard parse_shard(std::string const& text);

/// Whether the job at `job_path` belongs to shard `s`: a stable 64-bit hash of the path (XXH3,
/// the same on every machine and run) modulo N equals K.
[[nodiscard]] bool in_shard(std::string const& job_path, shard s) noexcept;

}  // namespace tracesweep::fleet
