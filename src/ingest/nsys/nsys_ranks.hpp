// SPDX-License-Identifier: Apache-2.0
// The ranks of an nsys export. The export records processes, not ranks: a capture of one GPU
// process takes the rank its launch environment names (RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK,
// PMI_RANK or SLURM_PROCID in TARGET_INFO_SYSTEM_ENV's DeviceEnvironment); otherwise the processes
// are numbered 0, 1, … in the order Linux started them, by process id, those with GPU work first.
// The export records no start times, and the first event of each depends on the tables read: the
// process id gives every command the same ranks. The process id is kept beside its rank.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include <tracesweep/event_table.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

/// The rank a `;`-separated environment (NAME=VALUE;…) names, by the variables above in that
/// order; nullopt when none is set to a whole number in [0, 2^31).
[[nodiscard]] std::optional<std::int32_t> rank_in_environment(std::string_view environment);

/// The rank the export's launch environment names: every DeviceEnvironment row that names one
/// must name the same. nullopt when the table, the variable or agreement is missing.
[[nodiscard]] std::optional<std::int32_t> launch_rank(connection& db, export_schema const& schema);

/// The process ids TARGET_INFO_CUDA_STREAM lists (processes with CUDA streams); empty when the
/// export has no such table.
[[nodiscard]] std::set<std::int32_t> cuda_processes(connection& db, export_schema const& schema);

/// Renumbers the ranks (process ids as read) of the table's current, finished input as above:
/// `launch` is the launch environment's rank, `cuda` the processes with CUDA streams. Records
/// process_ids, and ranks_numbered_by_reader unless the environment named the rank. The passes
/// over the rows run in chunks on `threads` threads (a count).
void rank_processes(event_table& table, std::optional<std::int32_t> launch,
                    std::set<std::int32_t> const& cuda, unsigned threads = 1);

}  // namespace tracesweep::nsys
