// SPDX-License-Identifier: Apache-2.0
// Errors that reach the user: a bad input file (exit 2), a usage mistake (exit 1), an unavailable
// backend (exit 2), a failure on the device (exit 2) and a result table asked for by a name it
// lacks (the CLI makes it a usage error). Each renders as "path: where: why" (the CLI shows it
// on one line, control characters escaped). None names a command-line option: the CLI maps them
// to the options they came from.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tracesweep {

/// Process exit codes shared by every command.
/// regression: `diff --fail-above` found a change for the worse above the threshold.
enum class exit_code : int { ok = 0, usage = 1, bad_input = 2, regression = 3 };

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

/// An input that passes a reader's safety limit (read_options): still a defect of the file (exit
/// 2), but one a user may lift; carries which limit and its value so the CLI can name the option.
class input_limit_error : public input_error {
 public:
  enum class limit { event_bytes, inflate_ratio };
  input_limit_error(std::string path, std::string where, std::string why, limit which,
                    std::uint64_t value)
      : input_error(std::move(path), std::move(where), std::move(why)),
        _which(which),
        _value(value) {}
  [[nodiscard]] limit which() const noexcept { return _which; }
  [[nodiscard]] std::uint64_t value() const noexcept { return _value; }

 private:
  limit _which;
  std::uint64_t _value;
};

/// The requested backend cannot run here (no GPU, no driver, built without CUDA). The message
/// says why; the CLI names the option.
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

/// A result has no table of the asked name; carries the name and the tables it does have.
class unknown_table_error : public std::runtime_error {
 public:
  unknown_table_error(std::string table, std::vector<std::string> valid)
      : std::runtime_error("unknown table " + table),
        _table(std::move(table)),
        _valid(std::move(valid)) {}

  [[nodiscard]] std::string const& table() const noexcept { return _table; }
  [[nodiscard]] std::vector<std::string> const& valid() const noexcept { return _valid; }

 private:
  std::string _table;
  std::vector<std::string> _valid;
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
