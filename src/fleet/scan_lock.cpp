// SPDX-License-Identifier: Apache-2.0
// The scan lock (scan_lock.hpp): claiming, waiting for, taking over and releasing the store's
// scan_lock row, each step one SQLite transaction (BEGIN IMMEDIATE, under the busy timeout).
#include "fleet/scan_lock.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include <tracesweep/error.hpp>
#include <tracesweep/fleet/results_store.hpp>

namespace tracesweep::fleet {

namespace {

std::string host_name() {
  char buffer[256] = {};
  return gethostname(buffer, sizeof buffer - 1) == 0 ? buffer : "";
}

/// Field 22 of /proc/PID/stat (the process's start, in clock ticks after boot): -1 when there
/// is no such process or no /proc.
std::int64_t process_start_of(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string const stat{std::istreambuf_iterator<char>(in), {}};
  auto const name_end = stat.rfind(')');  // the name (field 2) may hold spaces and parentheses
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::stoll(field);
  return -1;
}

lock_holder this_process(std::string const& label) {
  auto const pid = static_cast<std::int64_t>(getpid());
  return {host_name(), pid, process_start_of(pid), utc_now(), label, 0};
}

void in_transaction(sqlite_handle& db, auto&& work) {
  db.exec("BEGIN IMMEDIATE");
  try {
    work();
    db.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void mark_interrupted(sqlite_handle& db, std::int64_t run_id) {
  sql_statement q(db,
                  "UPDATE runs SET status = 'interrupted' WHERE run_id = ? AND "
                  "status = 'running'");
  q.bind(1, run_id).run();
}

void write_holder(sqlite_handle& db, lock_holder const& h) {
  sql_statement q(db,
                  "INSERT OR REPLACE INTO scan_lock(id, host, pid, process_start, since_utc, "
                  "label, run_id) VALUES (1, ?, ?, ?, ?, ?, NULLIF(?, 0))");
  q.bind(1, h.host).bind(2, h.pid).bind(3, h.process_start).bind(4, h.since_utc);
  q.bind(5, h.label).bind(6, h.run_id).run();
}

/// One attempt: the live holder when another scan has the lock, else nullopt (the lock is ours;
/// a stale holder's run is marked interrupted).
std::optional<lock_holder> try_claim(sqlite_handle& db, lock_holder const& me) {
  std::optional<lock_holder> busy;
  in_transaction(db, [&] {
    auto const holder = lock_holder_of(db);
    if (holder && holder->alive()) {
      busy = holder;
      return;
    }
    if (holder && holder->run_id) mark_interrupted(db, holder->run_id);
    write_holder(db, me);
  });
  return busy;
}

}  // namespace

bool lock_holder::alive() const {
  if (host != host_name()) return true;
  if (process_start >= 0) return process_start_of(pid) == process_start;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::string lock_holder::describe() const {
  return fmt::format("pid {} on host {} (label '{}', since {})", pid, host, label, since_utc);
}

std::optional<lock_holder> lock_holder_of(sqlite_handle const& db) {
  sql_statement q(db,
                  "SELECT host, pid, process_start, since_utc, label, ifnull(run_id, 0) "
                  "FROM scan_lock WHERE id = 1");
  if (!q.step()) return std::nullopt;
  return lock_holder{q.text(0), q.integer(1), q.integer(2), q.text(3), q.text(4), q.integer(5)};
}

scan_lock::scan_lock(sqlite_handle& db, std::string const& label, std::chrono::milliseconds wait)
    : _db(db), _me(this_process(label)) {
  auto const give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto const holder = try_claim(_db, _me);
    if (!holder) return;
    if (std::chrono::steady_clock::now() >= give_up)
      throw input_error(_db.path(), "scan",
                        fmt::format("another scan is writing this database: {}; waited {} s "
                                    "(--wait)",
                                    holder->describe(), wait.count() / 1000.0));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

scan_lock::~scan_lock() {
  try {
    in_transaction(_db, [&] {
      if (_me.run_id) mark_interrupted(_db, _me.run_id);
      sql_statement q(_db, "DELETE FROM scan_lock WHERE host = ? AND pid = ?");
      q.bind(1, _me.host).bind(2, _me.pid).run();
    });
  } catch (...) {  // (a lock left behind is stale once this process ends)
  }
}

void scan_lock::hold_run(std::int64_t run_id) {
  _me.run_id = run_id;
  in_transaction(_db, [&] { write_holder(_db, _me); });
}

}  // namespace tracesweep::fleet
