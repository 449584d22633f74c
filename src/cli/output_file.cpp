// SPDX-License-Identifier: Apache-2.0
#include "cli/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <tracesweep/error.hpp>
#include <tracesweep/input_reader.hpp>

namespace tracesweep::cli {

namespace {

bool same_file(struct stat const& a, struct stat const& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

void refuse_output_that_is_an_input(std::string const& output,
                                    std::vector<std::string> const& inputs) {
  struct stat out {};
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return;
  std::vector<std::string> files;
  try {
    files = expand_inputs(inputs);
  } catch (input_error const&) {
    return;  // reading reports it, with its own message
  }
  for (auto const& f : files) {
    struct stat in {};
    if (::stat(f.c_str(), &in) == 0 && same_file(in, out))
      throw usage_error("-o " + output + ": is the input " + f + "; refusing to overwrite it");
  }
}

output_file::output_file(std::string path) : _path(std::move(path)) {
  struct stat st {};
  bool const exists = ::stat(_path.c_str(), &st) == 0;
  if (!exists || S_ISREG(st.st_mode)) {
    std::error_code ec;
    auto const target = std::filesystem::weakly_canonical(_path, ec);
    auto const dir = (ec ? std::filesystem::path(_path) : target).parent_path();
    std::string templ =
        (dir.empty() ? std::string(".") : dir.string()) + "/.tracesweep-output-XXXXXX";
    int const fd = ::mkstemp(templ.data());
    if (fd < 0)
      throw usage_error("-o " + _path +
                        ": cannot create a file beside it: " + std::strerror(errno));
    ::close(fd);
    _temp = templ;
  }
  _out.open(_temp.empty() ? _path : _temp, std::ios::binary | std::ios::trunc);
  if (!_out) {
    int const err = errno;
    if (!_temp.empty()) std::remove(_temp.c_str());
    _temp.clear();
    throw usage_error("-o " + _path + ": cannot open for writing: " + std::strerror(err));
  }
}

output_file::~output_file() {
  if (!_committed && !_temp.empty()) std::remove(_temp.c_str());
}

void output_file::commit() {
  _out.flush();
  bool ok = static_cast<bool>(_out);
  _out.close();
  ok = ok && !_out.fail();
  if (!ok)
    throw input_error(_path, "writing the output", "write failed (device full or I/O error)");
  if (!_temp.empty()) {
    // mkstemp creates 0600; the output gets the usual mode of a new file.
    mode_t const mask = ::umask(0);
    ::umask(mask);
    ::chmod(_temp.c_str(), 0666 & ~mask);
    // Through a link, the file it names is replaced, not the link.
    std::error_code ec;
    auto const target = std::filesystem::weakly_canonical(_path, ec);
    if (std::rename(_temp.c_str(), (ec ? _path : target.string()).c_str()) != 0)
      throw std::runtime_error(_path +
                               ": cannot move the output into place: " + std::strerror(errno));
  }
  _committed = true;
}

}  // namespace tracesweep::cli
