// SPDX-License-Identifier: Apache-2.0
// The readers' library versions: the running SQLite and oneTBB, simdjson's headers, ISA-L's
// package version (it has no version call).
#include <tracesweep/build_info.hpp>

#include <oneapi/tbb/version.h>
#include <simdjson.h>
#include <sqlite3.h>

namespace tracesweep {

std::vector<library_version> reader_library_versions() {
  auto const simdjson = std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_REVISION);
  return {{"SQLite", sqlite3_libversion()},
          {"simdjson", simdjson},
          {"ISA-L", TRACESWEEP_ISAL_VERSION},
          {"oneTBB", TBB_runtime_version()}};
}

}  // namespace tracesweep
