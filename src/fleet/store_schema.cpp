// SPDX-License-Identifier: Apache-2.0
// The results store's migrations and the checks around them: a version is checked against the
// known range both ways before anything is written, and a migration that fails on tables that
// do not match their version is reported as such.
#include "fleet/store_schema.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include <tracesweep/error.hpp>

namespace tracesweep::fleet {

namespace {

// Version 1: the tables the fleet scan writes.
constexpr char const* migration_1 = R"sql(
CREATE TABLE runs(
  run_id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT '', started_utc TEXT NOT NULL,
  finished_utc TEXT, tool_version TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete')),
  arguments TEXT NOT NULL DEFAULT '', shard TEXT NOT NULL DEFAULT '');
CREATE TABLE jobs(
  job_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(run_id),
  path TEXT NOT NULL, name TEXT NOT NULL, ranks INTEGER NOT NULL, verdict TEXT);
CREATE TABLE traces(
  trace_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(run_id),
  job_id INTEGER NOT NULL REFERENCES jobs(job_id), path TEXT NOT NULL,
  size_bytes INTEGER NOT NULL, mtime_ns INTEGER, content_hash TEXT NOT NULL UNIQUE, format TEXT,
  ranks TEXT, events INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  error TEXT);
CREATE TABLE devices(
  trace_id INTEGER NOT NULL REFERENCES traces(trace_id), rank INTEGER NOT NULL,
  device INTEGER NOT NULL, window_ns INTEGER NOT NULL, busy_ns INTEGER NOT NULL,
  idle_ns INTEGER NOT NULL, utilization REAL NOT NULL, kernel_ns INTEGER NOT NULL,
  memcpy_ns INTEGER NOT NULL, memset_ns INTEGER NOT NULL, communication_ns INTEGER NOT NULL,
  computation_ns INTEGER NOT NULL, overlap_ns INTEGER NOT NULL, kernel_count INTEGER NOT NULL,
  verdict TEXT);
CREATE TABLE kernels(
  job_id INTEGER NOT NULL REFERENCES jobs(job_id), rank INTEGER NOT NULL, name TEXT NOT NULL,
  calls INTEGER NOT NULL, total_ns INTEGER NOT NULL, avg_ns REAL NOT NULL, median_ns REAL NOT NULL,
  min_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL, stddev_ns REAL NOT NULL);
CREATE TABLE gaps(
  trace_id INTEGER NOT NULL REFERENCES traces(trace_id), rank INTEGER NOT NULL,
  device INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL, cause TEXT NOT NULL);
CREATE TABLE findings(
  job_id INTEGER NOT NULL REFERENCES jobs(job_id), rank INTEGER, device INTEGER,
  kind TEXT NOT NULL, detail_json TEXT NOT NULL);
)sql";

// Version 2: idle time by cause per device, step times per rank, and the indexes reports use.
constexpr char const* migration_2 = R"sql(
ALTER TABLE devices ADD COLUMN idle_data_loading_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_sync_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_memcpy_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_communication_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_host_compute_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_launch_ns INTEGER;
ALTER TABLE devices ADD COLUMN idle_unknown_ns INTEGER;
CREATE TABLE steps(
  job_id INTEGER NOT NULL REFERENCES jobs(job_id), rank INTEGER NOT NULL,
  steps INTEGER NOT NULL, mean_step_ns INTEGER NOT NULL, utilization REAL NOT NULL);
CREATE INDEX jobs_by_run ON jobs(run_id, name);
CREATE INDEX traces_by_job ON traces(job_id);
CREATE INDEX devices_by_trace ON devices(trace_id);
CREATE INDEX kernels_by_job ON kernels(job_id);
CREATE INDEX gaps_by_trace ON gaps(trace_id);
CREATE INDEX findings_by_job ON findings(job_id);
CREATE INDEX steps_by_job ON steps(job_id);
)sql";

// Version 3: a run may be 'interrupted' (its scan ended without completing it); a content hash
// is unique among the traces stored ok only (a trace stored as an error is analysed again by the
// next scan); the scan lock, one row naming the scan that writes the store.
constexpr char const* migration_3 = R"sql(
CREATE TABLE runs_v3(
  run_id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT '', started_utc TEXT NOT NULL,
  finished_utc TEXT, tool_version TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'interrupted')),
  arguments TEXT NOT NULL DEFAULT '', shard TEXT NOT NULL DEFAULT '');
INSERT INTO runs_v3 SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v3 RENAME TO runs;
CREATE TABLE traces_v3(
  trace_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(run_id),
  job_id INTEGER NOT NULL REFERENCES jobs(job_id), path TEXT NOT NULL,
  size_bytes INTEGER NOT NULL, mtime_ns INTEGER, content_hash TEXT NOT NULL, format TEXT,
  ranks TEXT, events INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  error TEXT);
INSERT INTO traces_v3 SELECT * FROM traces;
DROP TABLE traces;
ALTER TABLE traces_v3 RENAME TO traces;
CREATE INDEX traces_by_job ON traces(job_id);
CREATE UNIQUE INDEX ok_traces_by_hash ON traces(content_hash) WHERE status = 'ok';
CREATE TABLE scan_lock(
  id INTEGER PRIMARY KEY CHECK (id = 1), host TEXT NOT NULL, pid INTEGER NOT NULL,
  process_start INTEGER NOT NULL, since_utc TEXT NOT NULL, label TEXT NOT NULL,
  run_id INTEGER);
)sql";

constexpr std::array<char const*, 3> migrations{migration_1, migration_2, migration_3};
constexpr int known = static_cast<int>(migrations.size());

void refuse_unknown(sqlite_handle const& db, int version) {
  if (version > known)
    throw input_error(db.path(), "results database",
                      fmt::format("schema version {} is newer than this tracesweep knows ({}): "
                                  "use a newer tracesweep",
                                  version, known));
  if (version < 0)
    throw input_error(
        db.path(), "results database",
        fmt::format("schema version {} is not one tracesweep writes (1 to {})", version, known));
}

void refuse_foreign(sqlite_handle const& db) {
  sql_statement tables(db, "SELECT count(*) FROM sqlite_master");
  if (tables.step() && tables.integer(0) > 0)
    throw input_error(db.path(), "results database",
                      "not a tracesweep results database (it has tables but no schema version)");
}

/// Runs migration `to` (from version to - 1), saying so when the tables do not match.
void apply_migration(sqlite_handle& db, int to) {
  try {
    db.exec(migrations[static_cast<std::size_t>(to - 1)]);
  } catch (input_error const& e) {
    throw input_error(db.path(), "results database",
                      fmt::format("schema version {} does not match its tables (migrating to "
                                  "{}: {}); was PRAGMA user_version changed by hand?",
                                  to - 1, to, e.why()));
  }
  db.exec("PRAGMA user_version = " + std::to_string(to));
}

}  // namespace

int schema_version_of(sqlite_handle const& db) {
  sql_statement q(db, "PRAGMA user_version");
  return q.step() ? static_cast<int>(q.integer(0)) : 0;
}

int check_schema_version(sqlite_handle const& db) {
  int const version = schema_version_of(db);
  refuse_unknown(db, version);
  if (version == 0) refuse_foreign(db);
  return version;
}

void migrate(sqlite_handle& db, int target) {
  if (target < 0 || target > known) throw std::logic_error("migrate: no such schema version");
  db.exec("BEGIN IMMEDIATE");
  try {
    for (int v = check_schema_version(db); v < target; ++v) apply_migration(db, v + 1);
    db.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace tracesweep::fleet
