// SPDX-License-Identifier: Apache-2.0
// The export's optional metadata: session start time (TARGET_INFO_SESSION_START_TIME), GPU names
// (TARGET_INFO_GPU or the older TARGET_INFO_CUDA_GPU) and thread names (ThreadNames → StringIds).
#pragma once

#include <tracesweep/event_table.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/nsys_strings.hpp"
#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

/// Fills `info`'s session_start_utc_ns, device_names and thread_names from whichever of the
/// tables and columns the export has; a missing table or column leaves its field empty. Plain
/// SELECTs in rowid order; the first row wins for a repeated key.
void load_metadata(connection& db, export_schema const& schema, string_ids const& ids,
                   input_info& info);

}  // namespace tracesweep::nsys
