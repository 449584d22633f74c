// SPDX-License-Identifier: Apache-2.0
// RE2's version: the library has no version call, so pkg-config's at build time.
#include <tracesweep/build_info.hpp>

namespace tracesweep {

library_version regex_library_version() {
  return {"RE2", TRACESWEEP_RE2_VERSION};
}

}  // namespace tracesweep
