// SPDX-License-Identifier: Apache-2.0
// A job read once for the Python module's Trace: its event table, the options it was read with,
// and the table it hands an analysis command (the same one, or the inputs read again where the
// command reads what the job's table lacks: other kernel names, launch details, NVTX sources).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/input_reader.hpp>
#include <tracesweep/model/row_filter.hpp>

namespace tracesweep::python {

struct job_settings {
  std::vector<std::string> paths;
  read_options reading;  ///< threads, limits, ranks, duplicates; kinds and side data are the job's
  row_filter filter;     ///< narrows every table the job reads
};

class python_job {
 public:
  /// Reads every input of `settings` (all event kinds, launch configurations) and filters it.
  explicit python_job(job_settings settings);
  python_job(python_job&&) = default;
  python_job& operator=(python_job&&) = default;
  /// Frees the tables and hands the freed heap back to the system (free_memory.hpp).
  ~python_job();

  [[nodiscard]] event_table const& table() const noexcept { return _table; }
  [[nodiscard]] job_settings const& settings() const noexcept { return _settings; }
  /// The table an analysis reading `wanted` runs on: the job's when it holds all `wanted` asks,
  /// else the inputs read again with `wanted` (kept until the next such call).
  [[nodiscard]] event_table const& serving(read_options const& wanted);

 private:
  [[nodiscard]] bool serves(read_options const& wanted) const noexcept;
  void read_into(event_table& table, read_options options) const;

  job_settings _settings;
  read_options _held;
  event_table _table;
  std::unique_ptr<event_table> _other;
};

}  // namespace tracesweep::python
