// SPDX-License-Identifier: Apache-2.0
// Writes an event table as Kineto Chrome-trace JSON, one file per rank (synthetic traces).
#pragma once

#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

namespace tracesweep {

/// Writes the events of each rank to `path_prefix` + "rank-N.json" (+ ".gz" when `gzip`);
/// returns the paths written.
std::vector<std::string> write_kineto_json(event_table const& table, std::string const& path_prefix,
                                           bool gzip);

}  // namespace tracesweep
