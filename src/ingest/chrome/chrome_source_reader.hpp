// SPDX-License-Identifier: Apache-2.0
// The Chrome-trace reader's core on any byte source (internal to ingest): read_chrome_trace
// opens the file and calls it; tests and fuzzers hand it bytes in memory and small chunks.
#pragma once

#include <cstddef>
#include <string>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

#include "ingest/chrome/byte_source.hpp"

namespace tracesweep::chrome {

/// Events are parsed in chunks of about this many bytes of JSON text.
inline constexpr std::size_t default_chunk_bytes = std::size_t{4} << 20;

/// Reads the trace `source` streams into `table` as read_chrome_trace does (`path` names it in
/// errors and in the table's input list); `chunk_bytes` as in event_splitter.
void read_chrome_source(byte_source& source, std::string const& path, event_table& table,
                        read_options const& options, std::size_t chunk_bytes = default_chunk_bytes);

}  // namespace tracesweep::chrome
