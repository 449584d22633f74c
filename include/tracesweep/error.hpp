// SPDX-License-Identifier: Apache-2.0
// Errors that reach the user: a bad input file (exit 2), a usage mistake (exit 1), an
// unavailable backend (exit 2) and a failure on the device (exit 2). Each renders as one line:
// "path: where: why".
#pragma once

#include <stdexcept>
#include <string>

namespace tracesweep {

/// Process exit codes shared by every command.
enum class exit_code : int { ok = 0, usage = 1, bad_input = 2 };

/// A fatal defect in one input file. `where` is a byte offset, an event index or a table name.
class input_error : public std::runtime_error {
 public:
  input_error(std::string path, std::string where, std::string why);

  [[nodiscard]] std::string const& path() const noexcept { return _path; }
  [[nodiscard]] std::string const& where() const noexcept { return _where; }
  [[nodiscard]] std::string const& why() const noexcept { return _why; }

 private:
  std::string _path;
  std::string _where;
  std::string _why;
};

/// The requested backend cannot run here (no GPU, no driver, built without CUDA).
class backend_unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A user-supplied regular expression that does not compile. Carries the pattern and RE2's
/// reason; the caller (the CLI) names the option it came from.
class pattern_error : public std::runtime_error {
 public:
  pattern_error(std::string pattern, std::string why);
  [[nodiscard]] std::string const& pattern() const noexcept { return _pattern; }
  [[nodiscard]] std::string const& why() const noexcept { return _why; }

 private:
  std::string _pattern;
  std::string _why;
};

/// A command-line mistake detected after parsing (conflicting options and the like).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure of the accelerator while an analysis ran (exit 2): running out of device memory,
/// a failed copy or kernel. One line; out of memory says that a lower device memory limit
/// processes the trace in smaller chunks.
class device_error : public std::runtime_error {
 public:
  device_error(std::string const& what, bool out_of_memory)
      : std::runtime_error(what), _out_of_memory(out_of_memory) {}
  [[nodiscard]] bool out_of_memory() const noexcept { return _out_of_memory; }

 private:
  bool _out_of_memory;
};

}  // namespace tracesweep
