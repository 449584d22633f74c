// SPDX-License-Identifier: Apache-2.0
// The results store: one SQLite database per fleet (or per shard) holding runs, jobs, traces and
// their answers (README "The results store"). WAL mode, one transaction per job, so a scan
// killed at any moment leaves a consistent database; PRAGMA user_version is the schema version,
// and opening a database of an older version migrates it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <tracesweep/fleet/job_record.hpp>

namespace tracesweep::fleet {

class sqlite_handle;

struct run_info {
  std::int64_t id = 0;
  std::string label;
  std::string started_utc, finished_utc;
  std::string tool_version;
  std::string status;     ///< "running", "complete" or "interrupted" (its scan ended first)
  std::string arguments;  ///< what was scanned (roots), for resuming and merging
  std::string shard;      ///< "K/N", or "" for a whole scan
};

class results_store {
 public:
  /// The schema version this build writes (PRAGMA user_version).
  static constexpr int schema_version = 3;

  /// Opens `path`, creating it when absent; migrates an older schema. Throws input_error when
  /// the file is not a results database, or is one of a newer version than this build knows.
  /// `read_only`: never creates or migrates (report, diff).
  explicit results_store(std::string const& path, bool read_only = false);
  ~results_store();
  results_store(results_store const&) = delete;
  results_store& operator=(results_store const&) = delete;

  /// Applies migrations 1…`version` to an empty database (tests build old versions with it).
  static void create_at_version(std::string const& path, int version);

  /// The latest unfinished run with these label, arguments and shard (a killed scan being
  /// completed), running again, or a new run.
  run_info begin_run(std::string const& label, std::string const& arguments,
                     std::string const& shard);
  /// The latest run still "running" or "interrupted" with these label, arguments and shard.
  [[nodiscard]] std::optional<run_info> unfinished_run(std::string const& label,
                                                       std::string const& arguments,
                                                       std::string const& shard) const;
  /// Marks the run complete, now (or at `finished_utc` when given).
  void finish_run(std::int64_t run_id, std::string const& finished_utc = {});
  /// A new run with exactly these fields (merge).
  std::int64_t insert_run(run_info const& run);
  void update_run(run_info const& run);

  /// The content hashes of every trace stored ok (any run): a trace stored as an error is
  /// analysed again.
  [[nodiscard]] std::unordered_set<std::string> stored_hashes() const;
  /// Writes the job and its traces and answers in one transaction. Thread-safe.
  void write_job(std::int64_t run_id, job_record const& job);

  [[nodiscard]] std::vector<run_info> runs() const;
  [[nodiscard]] std::int64_t job_count(std::int64_t run_id) const;
  /// The run `which` names: "latest" (the newest), "previous" (the one before it) or an id;
  /// nullopt when there is none. latest and previous skip interrupted runs, and the run of a
  /// scan that was killed before a later scan could mark it interrupted.
  [[nodiscard]] std::optional<run_info> find_run(std::string const& which) const;
  /// Every job of the run with its traces and answers, by job path.
  [[nodiscard]] std::vector<job_record> load_jobs(std::int64_t run_id) const;

  [[nodiscard]] sqlite_handle& handle() const noexcept { return *_db; }
  [[nodiscard]] std::string const& path() const noexcept { return _path; }

 private:
  /// Every run but the interrupted ones, oldest first.
  [[nodiscard]] std::vector<run_info> reportable_runs() const;

  std::string _path;
  std::unique_ptr<sqlite_handle> _db;
  mutable std::mutex _write;
};

/// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
[[nodiscard]] std::string utc_now();

}  // namespace tracesweep::fleet
