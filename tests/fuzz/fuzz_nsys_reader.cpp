// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the nsys SQLite reader (schema discovery, strings, labels, metadata, the
// table loaders with and without launch details, straight from the B-tree pages or through
// SQLite, GPU contexts and profiler overhead, rowid range planning, the appender) on a database
// image in memory, one thread.
// A refusal is an input_error, which must leave the table as it was; any other exception, or a
// sanitizer report, is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

#include "ingest/nsys/nsys_image.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  tracesweep::event_table table;
  tracesweep::read_options options;
  options.threads = 1;
  // The size picks the kernel naming and whether the optional parts (launch details, launch shapes,
  // range sources, GPU contexts and profiler overhead) are read: the bytes themselves stay a
  // database.
  options.kernel_names = static_cast<tracesweep::kernel_naming>(size % 3);
  options.launch_details = options.gpu_contexts = options.range_sources = (size / 3) % 2 == 1;
  options.launch_shapes = (size / 6) % 2 == 1;
  try {
    tracesweep::nsys::read_nsys_sqlite_image("fuzz.sqlite", std::as_bytes(std::span(data, size)),
                                             table, options);
  } catch (tracesweep::input_error const&) {
    if (table.size() != 0 || !table.inputs().empty()) {
      std::fprintf(stderr, "fuzz_nsys_reader: a refused input left rows or an input behind\n");
      std::abort();
    }
  }
  return 0;
}
