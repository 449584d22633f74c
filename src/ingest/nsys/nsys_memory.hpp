// SPDX-License-Identifier: Apache-2.0
// The export's CUDA memory usage (CUDA_GPU_MEMORY_USAGE_EVENTS, written by
// `nsys profile --cuda-memory-usage=true`) into event_table::memory.
#pragma once

#include <tracesweep/event_table.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

/// Appends one memory event per device-memory row (memKind 2, Device; every row when the
/// column is absent) of the current input, by (start, rowid): rank = the pid of globalPid,
/// device = deviceId, thread = -1 (the table records no thread), bytes = +bytes for
/// memoryOperationType 0 (allocation), -bytes for 1 (deallocation; other types are skipped
/// and counted under unknown_memory_operation); allocated = reserved = the running total of
/// (rank, device) from 0 (the driver's allocations, which a caching allocator reserves).
/// Nothing when the export has no such table.
void load_memory_usage(connection& db, export_schema const& schema, event_table& table);

}  // namespace tracesweep::nsys
