// SPDX-License-Identifier: Apache-2.0
// What this binary was built with, for --version: each layer names the libraries it uses and
// their versions (the running library's where it reports one, else the headers' at build time).
#pragma once

#include <string>
#include <vector>

namespace tracesweep {

struct library_version {
  std::string name;
  std::string version;
};

/// The readers' libraries: SQLite, simdjson, zlib, oneTBB (src/ingest).
[[nodiscard]] std::vector<library_version> reader_library_versions();

/// The regex engine of the filters and the communication patterns: RE2 (src/model).
[[nodiscard]] library_version regex_library_version();

/// Whether the CUDA backend was compiled in, and if so the CUDA toolkit version and the GPU
/// architectures built (src/backends): "not built (CPU only)" or "built with CUDA 13.0.48 for
/// 80-real 90-real 90-virtual".
[[nodiscard]] std::string cuda_build_description();

}  // namespace tracesweep
