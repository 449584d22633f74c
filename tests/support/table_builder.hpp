// SPDX-License-Identifier: Apache-2.0
// Hand-built event tables for the model and analysis tests: one call per row, inputs opened by
// format, every row's index returned so expectations can name rows.
#pragma once

#include <cstdint>
#include <string>

#include <tracesweep/event_table.hpp>

namespace tracesweep::test {

class table_builder {
 public:
  /// Starts a new input of `format` ("kineto-json", "paddle-json", "nsys-sqlite", …).
  table_builder& input(std::string const& format) {
    if (_open) table.finish_input();
    table.begin_input("input" + std::to_string(table.inputs().size()), format);
    _open = true;
    return *this;
  }
  /// A host row (device −1) on thread `thread`.
  std::size_t host(event_kind kind, std::int64_t start, std::int64_t end, std::int64_t thread,
                   std::int32_t rank = 0, std::int64_t correlation = -1,
                   std::string_view name = "host") {
    event e;
    e.kind = kind, e.start_ns = start, e.end_ns = end, e.stream = thread, e.rank = rank;
    e.correlation = correlation, e.name = table.strings().intern(name);
    return append(e);
  }
  /// A device row on (device, stream); a copy's `bytes`.
  std::size_t device(event_kind kind, std::int64_t start, std::int64_t end, std::int32_t device,
                     std::int64_t stream, std::int32_t rank = 0, std::int64_t correlation = -1,
                     std::string_view name = "kernel", std::int64_t bytes = 0) {
    event e;
    e.kind = kind, e.start_ns = start, e.end_ns = end, e.device = device, e.stream = stream;
    e.rank = rank, e.correlation = correlation, e.name = table.strings().intern(name);
    e.bytes = bytes;
    return append(e);
  }
  /// Closes the last input; the table is ready.
  event_table& done() {
    if (_open) table.finish_input();
    _open = false;
    return table;
  }

  event_table table;

 private:
  std::size_t append(event const& e) {
    table.append(e);
    return table.size() - 1;
  }
  bool _open = false;
};

}  // namespace tracesweep::test
