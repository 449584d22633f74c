// SPDX-License-Identifier: Apache-2.0
// The results store's schema as numbered migrations: migration N takes a database from
// user_version N-1 to N. Only ever append a migration; never edit one that has shipped.
#pragma once

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

/// Migrates `db` from its user_version up to `target`, all in one transaction (foreign keys
/// must be off: a migration may rebuild a table). Throws input_error as check_schema_version
/// does, or when the tables do not match their version; the database is then left as it was.
void migrate(sqlite_handle& db, int target);

/// The database's user_version, checked: throws input_error when it is not one this build
/// knows (negative, or newer than its last migration) or is 0 on a database with tables (not a
/// results database). Writes nothing.
int check_schema_version(sqlite_handle const& db);

/// The database's user_version.
[[nodiscard]] int schema_version_of(sqlite_handle const& db);

}  // namespace tracesweep::fleet
