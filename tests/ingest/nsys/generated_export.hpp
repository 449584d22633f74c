// SPDX-License-Identifier: Apache-2.0
// A synthetic trace written as an nsys export, for the reader tests that need a shape no real
// export has (many rowid ranges, old schema tables, a round trip). Needs tracesweep_generator.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <tracesweep/generator/nsys_sqlite_writer.hpp>
#include <tracesweep/generator/synthetic_trace.hpp>

#include "nsys_test_support.hpp"

namespace tracesweep::test {

/// The shape of the generated trace (the other synthetic_options keep their defaults).
struct generated_shape {
  std::int32_t ranks;
  std::int32_t devices_per_rank;
  std::int32_t steps;
  std::int32_t kernels_per_step;
};

/// Generates a trace of `shape` into `generated` and writes it as `dir`/`file`, returned.
inline std::filesystem::path write_generated_export(generated_shape const& shape,
                                                    event_table& generated, temp_dir const& dir,
                                                    std::string const& file) {
  synthetic_options o;
  o.ranks = shape.ranks;
  o.devices_per_rank = shape.devices_per_rank;
  o.steps = shape.steps;
  o.kernels_per_step = shape.kernels_per_step;
  generate_synthetic_trace(o, generated);
  auto path = dir.path() / file;
  write_nsys_sqlite(generated, path.string());
  return path;
}

}  // namespace tracesweep::test
