// SPDX-License-Identifier: Apache-2.0
// The scan lock: one scan writes a results store at a time. The lock is the single row of the
// store's scan_lock table, claimed in a BEGIN IMMEDIATE transaction, naming the process that
// holds it (host, pid and the process's start time, so a reused pid is not taken for it). A row
// whose process is gone (a scan killed) is stale: the next scan takes the lock over and marks
// the run that scan left running as interrupted.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

/// The process a lock row names.
struct lock_holder {
  std::string host;
  std::int64_t pid = 0;
  std::int64_t process_start = 0;  ///< clock ticks after boot (/proc/PID/stat), -1 unknown
  std::string since_utc, label;
  std::int64_t run_id = 0;  ///< 0 before the scan opened its run
  /// Whether that process still runs (a holder on another host is taken to).
  [[nodiscard]] bool alive() const;
  /// "pid 123 on host h (label 'x', since 2026-01-01T00:00:00Z)".
  [[nodiscard]] std::string describe() const;
};

/// The lock's holder, if any (read only: for report, which skips a dead holder's run).
[[nodiscard]] std::optional<lock_holder> lock_holder_of(sqlite_handle const& db);

class scan_lock {
 public:
  /// Claims the lock of `db` for a scan labelled `label`, retrying while a live scan holds it
  /// for up to `wait`; then throws input_error naming that scan. A stale lock is taken over and
  /// its run marked interrupted.
  scan_lock(sqlite_handle& db, std::string const& label, std::chrono::milliseconds wait);
  /// Releases the lock; the run it holds is marked interrupted unless it was completed.
  ~scan_lock();
  scan_lock(scan_lock const&) = delete;
  scan_lock& operator=(scan_lock const&) = delete;

  /// Records the run this scan writes (marked interrupted if the scan ends without it).
  void hold_run(std::int64_t run_id);

 private:
  sqlite_handle& _db;
  lock_holder _me;
};

}  // namespace tracesweep::fleet
