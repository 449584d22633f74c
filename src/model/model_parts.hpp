// SPDX-License-Identifier: Apache-2.0
// The parts of the trace model derived on first use: devices, launch links, the kernel time of
// the calls, steps, step names and step windows, nesting. Each is built by its own file from the
// table (and the parts it needs) once, under its once_flag.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/uninitialized_vector.hpp>

namespace tracesweep {

/// Per row of a table, another row of it or none (-1): 4 bytes a row while every row number
/// fits in 32 bits, 8 beyond.
class row_refs {
 public:
  static constexpr std::uint32_t none32 = 0xFFFF'FFFF;  ///< "none" in the narrow form
  row_refs() = default;
  /// `rows` entries, all none; 8 bytes an entry when `rows` reaches `narrow_limit` (tests lower
  /// it below 2^32 - 1 to run the wide form).
  explicit row_refs(std::size_t rows, std::size_t narrow_limit = none32) {
    if (rows < std::min<std::size_t>(narrow_limit, none32))
      _narrow.assign(rows, none32);
    else
      _wide.assign(rows, -1);
  }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept {
    if (!_wide.empty()) return _wide[i];
    return _narrow[i] == none32 ? -1 : std::int64_t{_narrow[i]};
  }
  /// Sets entry i to `row` (a row of the table, or -1 for none).
  void set(std::size_t i, std::int64_t row) noexcept {
    if (!_wide.empty())
      _wide[i] = row;
    else
      _narrow[i] = row < 0 ? none32 : static_cast<std::uint32_t>(row);
  }

 private:
  std::vector<std::uint32_t> _narrow;
  std::vector<std::int64_t> _wide;
};

struct trace_model::devices_part {
  std::vector<device_identity> devices;  ///< by dense id: (rank, device, input) order
  /// Per row; every row is written by the chunk that scans it (its fresh pages are faulted in
  /// on the chunks' threads, not zeroed first by one).
  uninitialized_vector<group_id> device_group;
  std::vector<std::uint8_t> communication;  ///< per string id

  devices_part(event_table const& t, name_regex const& comm_regex, unsigned threads);
};

struct trace_model::links_part {
  row_refs launcher;                   ///< per row: the launching api_call row, or -1
  std::vector<std::uint8_t> kept;      ///< per row
  std::vector<std::uint8_t> launches;  ///< per row: 1 for a call some device row links to

  explicit links_part(trace_model const& model);
};

/// The kernel time the API calls launched, per call, per thread and per rank (from the links).
struct trace_model::call_times_part {
  /// (call row, kernel time it launched) for the calls that launched kernels, by row.
  std::vector<std::pair<std::size_t, std::int64_t>> launched_by_call;
  /// API calls of one host thread, by start, with the kernel time each launched.
  struct thread_calls {
    std::vector<std::int64_t> start, end, kernel_ns;
  };
  std::map<std::pair<std::int32_t, std::int64_t>, thread_calls> calls;  ///< by (input, thread)
  /// API calls of one rank, any thread: starts ascending, prefix sums of the kernel time
  /// (kernel_ns[k] = Σ launched by calls before k).
  struct rank_calls {
    std::vector<std::int64_t> start;
    std::vector<std::int64_t> kernel_ns{0};
  };
  std::vector<rank_calls> by_rank;  ///< by rank index

  explicit call_times_part(trace_model const& model);
};

struct trace_model::steps_part {
  std::vector<std::size_t> rows;      ///< step rows by (rank index, start, row)
  std::vector<std::size_t> offsets;   ///< rank index r owns rows[offsets[r], offsets[r + 1])
  std::vector<std::int64_t> span_ns;  ///< per rank index: max end − min start of kept rows

  explicit steps_part(trace_model const& model);
};

/// The step pattern's verdict on the names host user ranges carry.
struct trace_model::step_names_part {
  std::vector<std::uint8_t> step_name;  ///< per string id: 1 for a step name

  step_names_part(event_table const& t, name_regex const* step_regex);
};

struct trace_model::step_windows_part {
  std::vector<std::vector<step_window>> by_rank;  ///< by rank index
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<step_window>> by_thread;

  explicit step_windows_part(trace_model const& model);
};

struct trace_model::nesting_part {
  row_refs parent;  ///< per row, -1 for none
  std::vector<std::size_t> outermost_stages;

  explicit nesting_part(event_table const& t);
};

struct trace_model::lazy_parts {
  std::once_flag devices_once, links_once, call_times_once, steps_once, step_names_once,
      windows_once, nesting_once;
  std::unique_ptr<devices_part> devices;
  std::unique_ptr<links_part> links;
  std::unique_ptr<call_times_part> call_times;
  std::unique_ptr<steps_part> steps;
  std::unique_ptr<step_names_part> step_names;
  std::unique_ptr<step_windows_part> windows;
  std::unique_ptr<nesting_part> nesting;
};

}  // namespace tracesweep
