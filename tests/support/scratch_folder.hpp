// SPDX-License-Identifier: Apache-2.0
// A fresh folder under the temporary directory for one test, removed at the end.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace tracesweep::test {

/// The folder ts_<tag>_<pid> under the temporary directory: emptied when made, removed at the end.
class scratch {
 public:
  explicit scratch(std::string const& tag)
      : _path(std::filesystem::temp_directory_path() /
              ("ts_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(_path);
    std::filesystem::create_directories(_path);
  }
  ~scratch() { std::filesystem::remove_all(_path); }
  scratch(scratch const&) = delete;
  scratch& operator=(scratch const&) = delete;
  [[nodiscard]] std::filesystem::path file(std::string const& name) const { return _path / name; }

 private:
  std::filesystem::path _path;
};

}  // namespace tracesweep::test
