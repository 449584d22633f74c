// SPDX-License-Identifier: Apache-2.0
// results_store::write_job: a job, its traces and its answers in one transaction.
#include <tracesweep/fleet/results_store.hpp>

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

namespace {

std::string ranks_text(std::vector<std::int32_t> const& ranks) {
  std::string out;
  for (auto r : ranks) {
    if (!out.empty()) out += ',';
    out += std::to_string(r);
  }
  return out;
}

std::int64_t insert_job(sqlite_handle const& db, std::int64_t run_id, job_record const& job) {
  sql_statement q(db,
                  "INSERT INTO jobs(run_id, path, name, ranks, verdict) "
                  "VALUES (?, ?, ?, ?, NULLIF(?, ''))");
  q.bind(1, run_id).bind(2, job.path).bind(3, job.name).bind(4, std::int64_t{job.ranks});
  q.bind(5, job.verdict).run();
  return sqlite3_last_insert_rowid(db.get());
}

std::vector<std::int64_t> insert_traces(sqlite_handle const& db, std::int64_t run_id,
                                        std::int64_t job_id, job_record const& job) {
  sql_statement q(db,
                  "INSERT INTO traces(run_id, job_id, path, size_bytes, mtime_ns, content_hash, "
                  "format, ranks, events, status, error) VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, ''), "
                  "NULLIF(?, ''), ?, ?, NULLIF(?, ''))");
  std::vector<std::int64_t> ids;
  for (auto const& t : job.traces) {
    q.bind(1, run_id).bind(2, job_id).bind(3, t.path).bind(4, t.size_bytes).bind(5, t.mtime_ns);
    q.bind(6, t.content_hash).bind(7, t.format).bind(8, ranks_text(t.ranks)).bind(9, t.events);
    q.bind(10, std::string(t.ok ? "ok" : "error")).bind(11, t.error).run();
    ids.push_back(sqlite3_last_insert_rowid(db.get()));
  }
  return ids;
}

void insert_devices(sqlite_handle const& db, std::vector<std::int64_t> const& trace_ids,
                    job_record const& job) {
  sql_statement q(db,
                  "INSERT INTO devices(trace_id, rank, device, window_ns, busy_ns, idle_ns, "
                  "utilization, kernel_ns, memcpy_ns, memset_ns, communication_ns, "
                  "computation_ns, overlap_ns, kernel_count, verdict, idle_data_loading_ns, "
                  "idle_sync_ns, idle_memcpy_ns, idle_communication_ns, idle_host_compute_ns, "
                  "idle_launch_ns, idle_unknown_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?)");
  for (auto const& d : job.devices) {
    q.bind(1, trace_ids.at(static_cast<std::size_t>(d.trace)));
    q.bind(2, std::int64_t{d.rank}).bind(3, std::int64_t{d.device}).bind(4, d.window_ns);
    q.bind(5, d.busy_ns).bind(6, d.idle_ns).bind(7, d.utilization).bind(8, d.kernel_ns);
    q.bind(9, d.memcpy_ns).bind(10, d.memset_ns).bind(11, d.communication_ns);
    q.bind(12, d.computation_ns).bind(13, d.overlap_ns).bind(14, d.kernel_count);
    q.bind(15, d.verdict);
    for (int c = 0; c < idle_cause_count; ++c) q.bind(16 + c, d.idle[static_cast<std::size_t>(c)]);
    q.run();
  }
}

void insert_kernels(sqlite_handle const& db, std::int64_t job_id, job_record const& job) {
  sql_statement q(db,
                  "INSERT INTO kernels(job_id, rank, name, calls, total_ns, avg_ns, median_ns, "
                  "min_ns, max_ns, stddev_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (auto const& k : job.kernels) {
    q.bind(1, job_id).bind(2, std::int64_t{k.rank}).bind(3, k.name).bind(4, k.calls);
    q.bind(5, k.total_ns).bind(6, k.avg_ns).bind(7, k.median_ns).bind(8, k.min_ns);
    q.bind(9, k.max_ns).bind(10, k.stddev_ns).run();
  }
}

void insert_gaps(sqlite_handle const& db, std::vector<std::int64_t> const& trace_ids,
                 job_record const& job) {
  sql_statement q(db,
                  "INSERT INTO gaps(trace_id, rank, device, start_ns, end_ns, duration_ns, cause) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (auto const& g : job.gaps) {
    q.bind(1, trace_ids.at(static_cast<std::size_t>(g.trace))).bind(2, std::int64_t{g.rank});
    q.bind(3, std::int64_t{g.device}).bind(4, g.start_ns).bind(5, g.end_ns);
    q.bind(6, g.end_ns - g.start_ns).bind(7, g.cause).run();
  }
}

void insert_findings_and_steps(sqlite_handle const& db, std::int64_t job_id,
                               job_record const& job) {
  sql_statement f(db,
                  "INSERT INTO findings(job_id, rank, device, kind, detail_json) "
                  "VALUES (?, ?, ?, ?, json(?))");
  for (auto const& x : job.findings) {
    f.bind(1, job_id).bind_or_null(2, x.rank).bind_or_null(3, x.device).bind(4, x.kind);
    f.bind(5, x.detail_json).run();
  }
  sql_statement s(db,
                  "INSERT INTO steps(job_id, rank, steps, mean_step_ns, utilization) "
                  "VALUES (?, ?, ?, ?, ?)");
  for (auto const& r : job.rank_steps) {
    s.bind(1, job_id).bind(2, std::int64_t{r.rank}).bind(3, r.steps).bind(4, r.mean_step_ns);
    s.bind(5, r.utilization).run();
  }
}

}  // namespace

void results_store::write_job(std::int64_t run_id, job_record const& job) {
  std::lock_guard lock(_write);
  _db->exec("BEGIN IMMEDIATE");
  try {
    auto const job_id = insert_job(*_db, run_id, job);
    auto const trace_ids = insert_traces(*_db, run_id, job_id, job);
    insert_devices(*_db, trace_ids, job);
    insert_kernels(*_db, job_id, job);
    insert_gaps(*_db, trace_ids, job);
    insert_findings_and_steps(*_db, job_id, job);
    _db->exec("COMMIT");
  } catch (...) {
    sqlite3_exec(_db->get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace tracesweep::fleet
