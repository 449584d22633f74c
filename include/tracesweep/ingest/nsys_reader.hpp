// SPDX-License-Identifier: Apache-2.0
// Reads an Nsight Systems SQLite export (nsys export --type sqlite) into the event table.
#pragma once

#include <string>
#include <string_view>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep {

/// Opens `path` read-only and immutable; throws input_error on any fatal defect.
/// Whether a file's first bytes are an SQLite database (the SQLite header string).
[[nodiscard]] bool is_nsys_sqlite(std::string_view head) noexcept;

void read_nsys_sqlite(std::string const& path, event_table& table, read_options const& options);

}  // namespace tracesweep
