// SPDX-License-Identifier: Apache-2.0
// The fleet report: each table one SQL query over the results store.
#include <tracesweep/fleet/fleet_report.hpp>

#include <array>

#include "fleet/sql_table.hpp"

namespace tracesweep::fleet {

namespace {

using enum output::value_type;

sql_column str(std::string name) {
  return {std::move(name), string, "", "", "", -1};
}
sql_column num(std::string name) {
  return {std::move(name), integer, "", "", "", -1};
}
sql_column ns(std::string name, std::string label) {
  return {std::move(name), integer, "ns", std::move(label), "ms", 3};
}
sql_column share(std::string name, std::string label) {
  return {std::move(name), real, "fraction", std::move(label), "%", 1};
}

output::result_table run_table(sqlite_handle const& db, std::int64_t run) {
  auto t = query_table(db, "run", "Run",
                       {num("run_id"), str("label"), str("status"), str("started_utc"),
                        str("finished_utc"), num("jobs"), num("traces_ok"), num("traces_failed")},
                       "SELECT r.run_id, r.label, r.status, r.started_utc, r.finished_utc, "
                       "(SELECT count(*) FROM jobs WHERE run_id = r.run_id), "
                       "(SELECT count(*) FROM traces WHERE run_id = r.run_id AND status = 'ok'), "
                       "(SELECT count(*) FROM traces WHERE run_id = r.run_id AND status = 'error') "
                       "FROM runs r WHERE r.run_id = ?1",
                       {run});
  t.shape = output::json_shape::object;
  return t;
}

output::result_table worst_devices(sqlite_handle const& db, std::int64_t run, std::int64_t top) {
  return query_table(db, "worst_devices", "Worst devices by utilization",
                     {str("job"),
                      {"path", string, "", "", "", -1, output::flat | output::json},
                      num("rank"),
                      num("device"),
                      share("utilization", "util (%)"),
                      ns("busy_ns", "busy (ms)"),
                      ns("window_ns", "window (ms)"),
                      str("verdict")},
                     "SELECT j.name, t.path, d.rank, d.device, d.utilization, d.busy_ns, "
                     "d.window_ns, d.verdict FROM devices d JOIN traces t USING (trace_id) "
                     "JOIN jobs j USING (job_id) WHERE j.run_id = ?1 "
                     "ORDER BY d.utilization, j.name, t.path, d.rank, d.device LIMIT ?2",
                     {run, top > 0 ? top : -1});
}

output::result_table idle_by_cause_table(sqlite_handle const& db, std::int64_t run) {
  constexpr std::array causes{"data_loading", "sync",   "memcpy", "communication",
                              "host_compute", "launch", "unknown"};
  std::string parts;
  for (auto const* c : causes)
    parts += std::string("SELECT '") + c + "', sum(idle_" + c + "_ns), sum(idle_" + c +
             "_ns > 0) FROM d UNION ALL ";
  parts +=
      "SELECT 'short_gaps', sum(idle_ns - (idle_data_loading_ns + idle_sync_ns + idle_memcpy_ns "
      "+ idle_communication_ns + idle_host_compute_ns + idle_launch_ns + idle_unknown_ns)), "
      "NULL FROM d";
  auto t = query_table(
      db, "idle_by_cause", "Idle time by cause (short_gaps: holes shorter than the min gap)",
      {str("cause"), ns("idle_ns", "idle (ms)"), share("share", "share (%)"), num("devices")},
      "WITH d AS (SELECT v.* FROM devices v JOIN traces t USING (trace_id) WHERE t.run_id = ?1), "
      "c(cause, ns, devices) AS (" +
          parts +
          ") SELECT cause, coalesce(ns, 0), ns * 1.0 / nullif((SELECT sum(ns) FROM c), 0), "
          "devices FROM c ORDER BY coalesce(ns, 0) DESC, cause",
      {run});
  t.plot = {output::chart_kind::bars, "cause", "idle_ns", "", "cause", "idle", {}, false};
  return t;
}

output::result_table top_kernels(sqlite_handle const& db, std::int64_t run, std::int64_t top) {
  auto t = query_table(
      db, "top_kernels", "Most expensive kernels across the fleet",
      {str("name"),
       num("jobs"),
       num("calls"),
       ns("total_ns", "total (ms)"),
       share("share", "share (%)"),
       {"avg_ns", real, "ns", "avg (ms)", "ms", 3},
       ns("max_ns", "max (ms)")},
      "WITH k AS (SELECT k.* FROM kernels k JOIN jobs j USING (job_id) WHERE j.run_id = ?1) "
      "SELECT name, count(DISTINCT job_id), sum(calls), sum(total_ns), "
      "sum(total_ns) * 1.0 / nullif((SELECT sum(total_ns) FROM k), 0), "
      "sum(total_ns) * 1.0 / sum(calls), max(max_ns) FROM k GROUP BY name "
      "ORDER BY sum(total_ns) DESC, name LIMIT ?2",
      {run, top > 0 ? top : -1});
  t.columns[0].symbol = true;  // short names with --names short, elided to fit the width
  return t;
}

output::result_table stragglers(sqlite_handle const& db, std::int64_t run) {
  return query_table(
      db, "stragglers", "Stragglers per job",
      {str("job"), num("rank"), ns("mean_step_ns", "mean step (ms)"),
       ns("median_rank_step_ns", "median rank (ms)"), share("excess", "excess (%)")},
      "SELECT j.name, f.rank, json_extract(f.detail_json, '$.mean_step_ns'), "
      "json_extract(f.detail_json, '$.median_rank_step_ns'), "
      "json_extract(f.detail_json, '$.excess') FROM findings f JOIN jobs j USING (job_id) "
      "WHERE j.run_id = ?1 AND f.kind = 'straggler' ORDER BY 5 DESC, j.name, f.rank",
      {run});
}

output::result_table verdict_changes(sqlite_handle const& db, std::int64_t run) {
  return query_table(db, "verdict_changes", "Jobs whose verdict changed since their previous run",
                     {str("job"), num("previous_run"), str("previous_verdict"), str("verdict")},
                     "SELECT j.name, p.run_id, p.verdict, j.verdict FROM jobs j JOIN jobs p "
                     "ON p.name = j.name AND p.run_id = (SELECT max(x.run_id) FROM jobs x "
                     "WHERE x.name = j.name AND x.run_id < j.run_id) "
                     "WHERE j.run_id = ?1 AND p.verdict IS NOT j.verdict ORDER BY j.name",
                     {run});
}

output::result_table errors(sqlite_handle const& db, std::int64_t run) {
  return query_table(db, "errors", "Traces that could not be analyzed", {str("path"), str("error")},
                     "SELECT path, error FROM traces WHERE run_id = ?1 AND status = 'error' "
                     "ORDER BY path",
                     {run});
}

}  // namespace

output::result_set fleet_report(results_store const& store, run_info const& run,
                                report_options const& o) {
  auto const& db = store.handle();
  output::result_set out;
  out.tables.push_back(run_table(db, run.id));
  out.tables.push_back(worst_devices(db, run.id, o.top));
  out.tables.push_back(idle_by_cause_table(db, run.id));
  out.tables.push_back(top_kernels(db, run.id, o.top));
  out.tables.push_back(stragglers(db, run.id));
  out.tables.push_back(verdict_changes(db, run.id));
  out.tables.push_back(errors(db, run.id));
  return out;
}

}  // namespace tracesweep::fleet
