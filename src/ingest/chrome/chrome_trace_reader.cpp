// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the owning work item.
#include <tracesweep/error.hpp>
#include <tracesweep/ingest/chrome_trace_reader.hpp>
namespace tracesweep {
void read_chrome_trace(std::string const& path, event_table&, read_options const&) { throw input_error(path, "", "chrome reader not implemented yet"); }
}
