// SPDX-License-Identifier: Apache-2.0
// Where -o writes, safely: never an input (checked by file identity before anything is read), a
// regular file only through a temporary file beside it renamed into place once every byte is
// written, and every write checked (a failed write is an error and leaves no partial file).
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace tracesweep::cli {

/// Throws usage_error when `output` is one of the files `inputs` names (directories expanded),
/// directly or through a link. Does nothing when `output` does not exist yet.
void refuse_output_that_is_an_input(std::string const& output,
                                    std::vector<std::string> const& inputs);

class output_file {
 public:
  /// Opens `path` for writing: a temporary file beside it when `path` is (or will be) a regular
  /// file, else `path` itself (a device such as /dev/null, a FIFO). Throws usage_error when
  /// it cannot be opened.
  explicit output_file(std::string path);
  output_file(output_file const&) = delete;
  output_file& operator=(output_file const&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~output_file();

  [[nodiscard]] std::ostream& stream() noexcept { return _out; }
  /// Flushes and closes, checks that every write succeeded, renames the temporary file into
  /// place. Throws input_error (path: writing the output: why; exit 2) when anything failed.
  void commit();

 private:
  std::string _path;
  std::string _temp;  ///< empty when writing to _path directly
  std::ofstream _out;
  bool _committed = false;
};

}  // namespace tracesweep::cli
