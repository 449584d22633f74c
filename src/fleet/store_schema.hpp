// SPDX-License-Identifier: Apache-2.0
// The results store's schema as numbered migrations: migration N takes a database from
// user_version N-1 to N. Only ever append a migration; never edit one that has shipped.
#pragma once

#include "fleet/sqlite_handle.hpp"

namespace tracesweep::fleet {

/// Migrates `db` from its user_version up to `target`, all in one transaction.
/// Throws input_error when the database is newer than `target` or holds tables but no version
/// (not a results database).
void migrate(sqlite_handle& db, int target);

/// The database's user_version.
[[nodiscard]] int schema_version_of(sqlite_handle const& db);

}  // namespace tracesweep::fleet
