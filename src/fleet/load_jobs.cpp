// SPDX-License-Identifier: Apache-2.0
// results_store::load_jobs: a run's jobs read back as job records (diff and merge use them).
#include <tracesweep/fleet/results_store.hpp>

#include <charconv>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include <tracesweep/error.hpp>
#include <tracesweep/output/safe_text.hpp>

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

namespace {

/// The ranks of a trace as stored ("0,1,3"); a store whose list is not one is refused.
std::vector<std::int32_t> parse_ranks(sqlite_handle const& db, std::string const& text) {
  std::vector<std::int32_t> out;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    std::int32_t rank = 0;
    auto const [end, ec] = std::from_chars(part.data(), part.data() + part.size(), rank);
    if (ec != std::errc() || end != part.data() + part.size())
      throw input_error(
          db.path(), "results database",
          "traces.ranks holds " + output::valid_utf8(part.substr(0, 40)) + ", not a list of ranks");
    out.push_back(rank);
  }
  return out;
}

/// The position among the job's traces of a row's trace_id; a row naming a trace the job's
/// traces did not list (a damaged file or index) is refused, not trusted.
std::int32_t trace_position(sqlite_handle const& db, char const* table,
                            std::map<std::int64_t, std::int32_t> const& index, std::int64_t id) {
  auto const it = index.find(id);
  if (it == index.end())
    throw input_error(db.path(), "results database",
                      fmt::format("{} names trace_id {}, which its job's traces do not hold (a "
                                  "damaged database?)",
                                  table, id));
  return it->second;
}

/// The job's traces; fills `index` with trace_id → position.
void load_traces(sqlite_handle const& db, std::int64_t job_id, job_record& job,
                 std::map<std::int64_t, std::int32_t>& index) {
  sql_statement q(db,
                  "SELECT trace_id, path, size_bytes, mtime_ns, content_hash, format, ranks, "
                  "events, status, error FROM traces WHERE job_id = ? ORDER BY trace_id");
  q.bind(1, job_id);
  while (q.step()) {
    index[q.integer(0)] = static_cast<std::int32_t>(job.traces.size());
    job.traces.push_back({q.text(1), q.integer(2), q.integer(3), q.text(4), q.text(5),
                          parse_ranks(db, q.text(6)), q.integer(7), q.text(8) == "ok", q.text(9),
                          std::nullopt});
  }
}

void load_devices(sqlite_handle const& db, std::int64_t job_id,
                  std::map<std::int64_t, std::int32_t> const& index, job_record& job) {
  sql_statement q(db,
                  "SELECT d.trace_id, d.rank, d.device, window_ns, busy_ns, idle_ns, "
                  "utilization, kernel_ns, memcpy_ns, memset_ns, communication_ns, "
                  "computation_ns, overlap_ns, kernel_count, verdict, idle_data_loading_ns, "
                  "idle_sync_ns, idle_memcpy_ns, idle_communication_ns, idle_host_compute_ns, "
                  "idle_launch_ns, idle_unknown_ns FROM devices d JOIN traces t USING (trace_id) "
                  "WHERE t.job_id = ? ORDER BY d.rowid");
  q.bind(1, job_id);
  while (q.step()) {
    device_record d;
    d.trace = trace_position(db, "devices", index, q.integer(0));
    d.rank = static_cast<std::int32_t>(q.integer(1));
    d.device = static_cast<std::int32_t>(q.integer(2));
    d.window_ns = q.integer(3);
    d.busy_ns = q.integer(4);
    d.idle_ns = q.integer(5);
    d.utilization = q.real(6);
    d.kernel_ns = q.integer(7);
    d.memcpy_ns = q.integer(8);
    d.memset_ns = q.integer(9);
    d.communication_ns = q.integer(10);
    d.computation_ns = q.integer(11);
    d.overlap_ns = q.integer(12);
    d.kernel_count = q.integer(13);
    d.verdict = q.text(14);
    for (int c = 0; c < idle_cause_count; ++c)
      d.idle[static_cast<std::size_t>(c)] = q.integer(15 + c);
    job.devices.push_back(std::move(d));
  }
}

void load_kernels(sqlite_handle const& db, std::int64_t job_id, job_record& job) {
  sql_statement q(db,
                  "SELECT rank, name, calls, total_ns, avg_ns, median_ns, min_ns, max_ns, "
                  "stddev_ns FROM kernels WHERE job_id = ? ORDER BY rowid");
  q.bind(1, job_id);
  while (q.step())
    job.kernels.push_back({static_cast<std::int32_t>(q.integer(0)), q.text(1), q.integer(2),
                           q.integer(3), q.real(4), q.real(5), q.integer(6), q.integer(7),
                           q.real(8)});
}

void load_gaps(sqlite_handle const& db, std::int64_t job_id,
               std::map<std::int64_t, std::int32_t> const& index, job_record& job) {
  sql_statement q(db,
                  "SELECT g.trace_id, g.rank, g.device, start_ns, end_ns, cause FROM gaps g "
                  "JOIN traces t USING (trace_id) WHERE t.job_id = ? ORDER BY g.rowid");
  q.bind(1, job_id);
  while (q.step())
    job.gaps.push_back(
        {trace_position(db, "gaps", index, q.integer(0)), static_cast<std::int32_t>(q.integer(1)),
         static_cast<std::int32_t>(q.integer(2)), q.integer(3), q.integer(4), q.text(5)});
}

void load_findings_and_steps(sqlite_handle const& db, std::int64_t job_id, job_record& job) {
  sql_statement f(db,
                  "SELECT rank, device, kind, detail_json FROM findings WHERE job_id = ? "
                  "ORDER BY rowid");
  f.bind(1, job_id);
  while (f.step())
    job.findings.push_back({f.is_null(0) ? -1 : static_cast<std::int32_t>(f.integer(0)),
                            f.is_null(1) ? -1 : static_cast<std::int32_t>(f.integer(1)), f.text(2),
                            f.text(3)});
  sql_statement s(db,
                  "SELECT rank, steps, mean_step_ns, utilization FROM steps WHERE job_id = ? "
                  "ORDER BY rowid");
  s.bind(1, job_id);
  while (s.step())
    job.rank_steps.push_back(
        {static_cast<std::int32_t>(s.integer(0)), s.integer(1), s.integer(2), s.real(3)});
}

}  // namespace

std::vector<job_record> results_store::load_jobs(std::int64_t run_id) const {
  std::vector<job_record> out;
  sql_statement q(*_db,
                  "SELECT job_id, path, name, ranks, verdict FROM jobs WHERE run_id = ? "
                  "ORDER BY path, job_id");
  q.bind(1, run_id);
  while (q.step()) {
    job_record job;
    auto const id = q.integer(0);
    job.path = q.text(1);
    job.name = q.text(2);
    job.ranks = static_cast<std::int32_t>(q.integer(3));
    job.verdict = q.text(4);
    std::map<std::int64_t, std::int32_t> index;
    load_traces(*_db, id, job, index);
    load_devices(*_db, id, index, job);
    load_kernels(*_db, id, job);
    load_gaps(*_db, id, index, job);
    load_findings_and_steps(*_db, id, job);
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace tracesweep::fleet
