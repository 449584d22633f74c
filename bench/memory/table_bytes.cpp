// SPDX-License-Identifier: Apache-2.0
// Memory per event in the event table: reads each FILE with every event kind at 1 thread and
// prints the bytes its events take (event_table::memory_footprint): the columns and interned
// strings per row, the optional side tables per row, the memory events each, and all of it over
// every event kept (rows and memory events).
#include <cstdio>

#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

namespace {

double per(std::size_t bytes, std::size_t n) {
  return n == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: table_bytes FILE...\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    tracesweep::event_table table;
    tracesweep::read_options o;
    o.threads = 1;
    try {
      tracesweep::read_input(argv[i], table, o);
    } catch (tracesweep::input_error const& e) {
      std::fprintf(stderr, "table_bytes: %s\n", e.what());
      return 2;
    }
    auto const f = table.memory_footprint();
    auto const rows = table.size(), memory = table.memory.size();
    std::printf(
        "%s: %zu rows, %zu strings: columns + strings %.1f B/row (columns %.1f); side tables "
        "%.1f B/row; %zu memory events, %.1f B each; %.1f B per event in all\n",
        argv[i], rows, table.strings().size(), per(f.row_columns + f.strings, rows),
        per(f.row_columns, rows), per(f.side_tables, rows), memory, per(f.memory_events, memory),
        per(f.total(), rows + memory));
  }
  return 0;
}
