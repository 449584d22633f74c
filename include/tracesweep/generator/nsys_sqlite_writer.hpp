// SPDX-License-Identifier: Apache-2.0
// Writes an event table as an Nsight Systems-schema SQLite export (synthetic traces, samples).
#pragma once

#include <string>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

/// Creates (overwrites) `path` with the nsys tables the events need.
void write_nsys_sqlite(event_table const& table, std::string const& path);

}  // namespace tracesweep
