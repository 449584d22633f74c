// SPDX-License-Identifier: Apache-2.0
// The nsys reader on a database given as bytes (internal to ingest: tests and fuzzers). The bytes
// are copied into a shared in-memory database (SQLite's memdb VFS, a name unique in the process)
// that every connection of the reader opens read-only; nothing touches the file system.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep::nsys {

/// Reads the SQLite database image `bytes` as read_nsys_sqlite reads a file; `name` stands for
/// the path in errors and in the table's input list. Throws input_error as the file reader does.
void read_nsys_sqlite_image(std::string const& name, std::span<std::byte const> bytes,
                            event_table& table, read_options const& options);

}  // namespace tracesweep::nsys
