// SPDX-License-Identifier: Apache-2.0
// The registry of readers, in the order their sniffers are tried. One line per format.
#include <tracesweep/ingest/chrome_trace_reader.hpp>
#include <tracesweep/ingest/nsys_reader.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep {

std::span<reader_entry const> readers() noexcept {
  static constexpr reader_entry all[] = {
      {"nsys-sqlite", is_nsys_sqlite, read_nsys_sqlite},
      {"chrome-json", is_chrome_trace, read_chrome_trace},
  };
  return all;
}

}  // namespace tracesweep
