// SPDX-License-Identifier: Apache-2.0
// Writes a summary as aligned text, JSON (every *_ns an integer) or CSV (one table at a time).
#pragma once

#include <ostream>
#include <string>

#include <tracesweep/output_format.hpp>
#include <tracesweep/summary.hpp>

namespace tracesweep {

/// The tables a summary has, in output order.
inline constexpr std::string_view summary_tables[] = {"devices", "kernels", "gaps", "inputs"};

/// Writes `s`. `table` empty = all tables (text and JSON); CSV needs one table (default devices).
/// An unknown table name throws usage_error.
void write_summary(summary const& s, output_format format, std::string const& table,
                   std::ostream& out);

}  // namespace tracesweep
