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

/// Events are parsed in chunks of about this many bytes of JSON text: small enough that the
/// text simdjson's first pass has just read is still in the cache when the events are iterated
/// (summary on a 951 MB Kineto trace: 1.29 s of user time with 4 MiB chunks, 1.25 s with 1 MiB;
/// 512 KiB no better).
inline constexpr std::size_t default_chunk_bytes = std::size_t{1} << 20;

/// Reads the trace `source` streams into `table` as read_chrome_trace does (`path` names it in
/// errors and in the table's input list); `chunk_bytes` as in event_splitter.
void read_chrome_source(byte_source& source, std::string const& path, event_table& table,
                        read_options const& options, std::size_t chunk_bytes = default_chunk_bytes);

}  // namespace tracesweep::chrome
