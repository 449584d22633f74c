// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the owning work item.
#include <tracesweep/error.hpp>
#include <tracesweep/ingest/nsys_reader.hpp>
namespace tracesweep {
void read_nsys_sqlite(std::string const& path, event_table&, read_options const&) { throw input_error(path, "", "nsys reader not implemented yet"); }
}
