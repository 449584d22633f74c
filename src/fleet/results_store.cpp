// SPDX-License-Identifier: Apache-2.0
// The results store: runs, one transaction per job, and reading jobs back (report, diff, merge).
#include <tracesweep/fleet/results_store.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include <tracesweep/error.hpp>
#include <tracesweep/version.hpp>

#include "fleet/scan_lock.hpp"
#include "fleet/sqlite_handle.hpp"
#include "fleet/store_schema.hpp"

namespace tracesweep::fleet {

std::string utc_now() {
  auto const now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

results_store::results_store(std::string const& path, bool read_only) : _path(path) {
  if (read_only && !std::filesystem::exists(path))
    throw input_error(path, "results database", "no such file");
  _db = std::make_unique<sqlite_handle>(path, read_only);
  // Checked before anything is written: a version this build does not know leaves the file as
  // it was.
  int const v = check_schema_version(*_db);
  if (read_only) {
    if (v == 0) throw input_error(path, "results database", "not a tracesweep results database");
    if (v != schema_version)
      throw input_error(path, "results database",
                        fmt::format("schema version {}, this tracesweep reads {} (a scan with "
                                    "this version migrates it)",
                                    v, schema_version));
    return;
  }
  // Migrated before WAL is set (a migration that fails leaves the file as it was), with foreign
  // keys off (a migration may rebuild a table).
  migrate(*_db, schema_version);
  _db->exec("PRAGMA journal_mode = WAL");
  _db->exec("PRAGMA synchronous = NORMAL");
  _db->exec("PRAGMA foreign_keys = ON");
}

results_store::~results_store() = default;

void results_store::create_at_version(std::string const& path, int version) {
  sqlite_handle db(path, false);
  migrate(db, version);
}

namespace {

run_info run_from(sql_statement const& q) {
  return {q.integer(0), q.text(1), q.text(2), q.text(3),
          q.text(4),    q.text(5), q.text(6), q.text(7)};
}

constexpr char const* run_columns =
    "SELECT run_id, label, started_utc, finished_utc, tool_version, status, arguments, shard "
    "FROM runs ";

}  // namespace

std::optional<run_info> results_store::unfinished_run(std::string const& label,
                                                      std::string const& arguments,
                                                      std::string const& shard) const {
  sql_statement q(*_db, std::string(run_columns) +
                            "WHERE status IN ('running', 'interrupted') AND label = ? AND "
                            "arguments = ? AND shard = ? ORDER BY run_id DESC LIMIT 1");
  q.bind(1, label).bind(2, arguments).bind(3, shard);
  if (q.step()) return run_from(q);
  return std::nullopt;
}

run_info results_store::begin_run(std::string const& label, std::string const& arguments,
                                  std::string const& shard) {
  std::lock_guard lock(_write);
  if (auto unfinished = unfinished_run(label, arguments, shard)) {
    unfinished->status = "running";
    sql_statement q(*_db, "UPDATE runs SET status = 'running' WHERE run_id = ?");
    q.bind(1, unfinished->id).run();
    return *unfinished;
  }
  run_info run{0, label, utc_now(), "", version_string, "running", arguments, shard};
  run.id = insert_run(run);
  return run;
}

std::int64_t results_store::insert_run(run_info const& r) {
  sql_statement q(*_db,
                  "INSERT INTO runs(label, started_utc, finished_utc, tool_version, status, "
                  "arguments, shard) VALUES (?, ?, NULLIF(?, ''), ?, ?, ?, ?)");
  q.bind(1, r.label).bind(2, r.started_utc).bind(3, r.finished_utc).bind(4, r.tool_version);
  q.bind(5, r.status).bind(6, r.arguments).bind(7, r.shard);
  q.run();
  return sqlite3_last_insert_rowid(_db->get());
}

void results_store::update_run(run_info const& r) {
  std::lock_guard lock(_write);
  sql_statement q(*_db,
                  "UPDATE runs SET started_utc = ?, finished_utc = NULLIF(?, ''), status = ? "
                  "WHERE run_id = ?");
  q.bind(1, r.started_utc).bind(2, r.finished_utc).bind(3, r.status).bind(4, r.id);
  q.run();
}

void results_store::finish_run(std::int64_t run_id, std::string const& finished_utc) {
  std::lock_guard lock(_write);
  sql_statement q(*_db, "UPDATE runs SET status = 'complete', finished_utc = ? WHERE run_id = ?");
  q.bind(1, finished_utc.empty() ? utc_now() : finished_utc).bind(2, run_id);
  q.run();
}

std::unordered_set<std::string> results_store::stored_hashes() const {
  std::unordered_set<std::string> out;
  sql_statement q(*_db, "SELECT content_hash FROM traces WHERE status = 'ok'");
  while (q.step()) out.insert(q.text(0));
  return out;
}

std::vector<run_info> results_store::runs() const {
  std::vector<run_info> out;
  sql_statement q(*_db, std::string(run_columns) + "ORDER BY run_id");
  while (q.step()) out.push_back(run_from(q));
  return out;
}

std::int64_t results_store::job_count(std::int64_t run_id) const {
  sql_statement q(*_db, "SELECT count(*) FROM jobs WHERE run_id = ?");
  q.bind(1, run_id);
  return q.step() ? q.integer(0) : 0;
}

std::vector<run_info> results_store::reportable_runs() const {
  auto all = runs();
  auto const holder = lock_holder_of(*_db);
  auto const stale_run = holder && !holder->alive() ? holder->run_id : 0;
  std::erase_if(all, [&](run_info const& r) {
    return r.status == "interrupted" || (r.status == "running" && r.id == stale_run);
  });
  return all;
}

std::optional<run_info> results_store::find_run(std::string const& which) const {
  if (which == "latest" || which == "previous") {
    auto const kept = reportable_runs();
    std::size_t const back = which == "latest" ? 1 : 2;
    return kept.size() < back ? std::nullopt : std::optional(kept[kept.size() - back]);
  }
  for (auto const& r : runs())
    if (std::to_string(r.id) == which) return r;
  return std::nullopt;
}

}  // namespace tracesweep::fleet
