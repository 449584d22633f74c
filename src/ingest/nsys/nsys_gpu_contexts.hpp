// SPDX-License-Identifier: Apache-2.0
// What nsys's gpu_gaps and gpu_time_util rules print and count besides the GPU operations: the
// CUDA contexts of each (process, device), and the profiler's flush/stop overhead ranges.
#pragma once

#include <tracesweep/event_table.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/nsys_strings.hpp"
#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

/// Fills `info.gpu_contexts` from the distinct (pid of globalPid, deviceId, contextId) of the
/// kernel, memcpy and memset rows with start > 0, and `info.profiler_overhead` from the
/// PROFILER_OVERHEAD rows named "CUDA profiling data flush overhead", "CUDA profiling stop
/// overhead" or "CUDA profiling overhead" (the names nsys's GPU-gap logic matches; rank = the
/// pid of globalTid). A missing table or column leaves its part empty.
void load_gpu_contexts(connection& db, export_schema const& schema, string_ids const& ids,
                       input_info& info);

}  // namespace tracesweep::nsys
