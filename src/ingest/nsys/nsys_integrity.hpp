// SPDX-License-Identifier: Apache-2.0
// The integrity check of an nsys export: SQLite's PRAGMA quick_check, run when it is cheap or
// when the database looks inconsistent, so a damaged file (a corrupt cell pointer, a truncated
// page) is an error instead of phantom rows.
#pragma once

#include <cstdint>

#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

/// Files up to this size are always checked (about 0.3 s at most on one core).
inline constexpr std::uint64_t always_check_bytes = std::uint64_t{64} << 20;

/// Runs PRAGMA quick_check on `db` when the file of `bytes` bytes is small (always_check_bytes),
/// when its page count × page size is not its size, or when `rows_consistent` is false (a device
/// table returned other than the rows its dense rowid span holds). Throws input_error naming
/// the first problem SQLite reports.
void check_integrity(connection& db, std::uint64_t bytes, bool rows_consistent);

}  // namespace tracesweep::nsys
