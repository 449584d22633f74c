// SPDX-License-Identifier: Apache-2.0
// The readers' library versions: the running SQLite, zlib and oneTBB, simdjson's headers.
#include <tracesweep/build_info.hpp>

#include <oneapi/tbb/version.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

namespace tracesweep {

std::vector<library_version> reader_library_versions() {
  auto const simdjson = std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
                        std::to_string(simdjson::SIMDJSON_VERSION_REVISION);
  return {{"SQLite", sqlite3_libversion()},
          {"simdjson", simdjson},
          {"zlib", zlibVersion()},
          {"oneTBB", TBB_runtime_version()}};
}

}  // namespace tracesweep
