// SPDX-License-Identifier: Apache-2.0
// Parses one chunk of Chrome-trace events with simdjson On-Demand into rows, in event order.
// Strings go into a chunk-local pool, so chunks can be parsed on any thread and merged into
// the table's pool in order afterwards (same ids whatever the thread count).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tracesweep/event_kind.hpp>
#include <tracesweep/event_table.hpp>
#include <tracesweep/string_pool.hpp>

#include "ingest/chrome/event_splitter.hpp"

namespace tracesweep::chrome {

/// Why a complete ("X") event was not kept.
enum class skip_reason : std::uint8_t {
  missing_ts,             ///< no "ts" (or null)
  missing_dur,            ///< no "dur" (or null)
  negative_dur,           ///< dur < 0
  invalid_ts,             ///< ts is not a number (a string, true, an object…)
  invalid_dur,            ///< dur is not a number
  time_out_of_range,      ///< ts or ts + dur in ns does not fit in int64 (the table's own check,
                          ///< time_in_range, counts under the same name)
  duration_out_of_range,  ///< dur in ns does not fit in int64
};
inline constexpr int skip_reason_count = 7;
[[nodiscard]] std::string_view to_string(skip_reason r) noexcept;

/// chunk_rows::memory.allocated of an event without "Total Allocated" (PyTorch before 1.10).
inline constexpr std::int64_t memory_total_absent = INT64_MIN;

/// Rows of one chunk. Times are ns before baseTimeNanoseconds is added; rank is not known yet.
struct chunk_rows {
  std::vector<std::int64_t> start_ns;
  std::vector<std::int64_t> end_ns;
  std::vector<event_kind> kind;
  std::vector<std::uint8_t> subkind;
  std::vector<std::int32_t> device;
  std::vector<std::int64_t> stream;
  std::vector<string_id> name;      ///< chunk-local ids into `strings`
  std::vector<string_id> category;  ///< chunk-local ids into `strings`
  std::vector<std::int64_t> correlation;
  std::vector<std::int64_t> bytes;
  std::vector<event_role> role;
  /// Host rows whose tid is not a number: (row, chunk-local id of the tid text).
  std::vector<std::pair<std::uint32_t, string_id>> text_thread;
  /// Kernel rows whose args carry "blocks per SM" and/or an achieved-occupancy %, row ascending;
  /// NaN for the one that is absent.
  std::vector<std::uint32_t> metric_row;
  std::vector<double> blocks_per_sm;
  std::vector<double> occupancy_pct;
  /// Kernel rows whose args carry a launch configuration ("grid" and "block"), row ascending.
  std::vector<std::uint32_t> shape_row;
  std::vector<std::array<std::int32_t, 3>> grid, block;
  /// Kernel rows whose args describe a collective, row ascending; string ids chunk-local.
  std::vector<std::uint32_t> collective_row;
  std::vector<collective_args> collective;
  /// Synchronization rows whose args say what they wait for, row ascending.
  std::vector<std::uint32_t> sync_row;
  std::vector<sync_wait> sync;
  /// Host rows whose args carry a "stream", row ascending, and that stream.
  std::vector<std::uint32_t> host_stream_row;
  std::vector<std::int64_t> host_stream;
  /// Memory events (`ph:"i"`, name `[memory]`), in event order: the table's memory_events
  /// columns before the rank and baseTimeNanoseconds are known.
  struct memory_columns {
    std::vector<std::int64_t> time_ns, thread, bytes, allocated, reserved;
    std::vector<std::int32_t> device;
    std::vector<memory_pool> pool;
    [[nodiscard]] std::size_t size() const noexcept { return time_ns.size(); }
  } memory;
  /// Memory events (Kineto's or Paddle's) not kept: no usable `ts`.
  std::int64_t memory_skipped = 0;
  /// Paddle memory events not kept: a place that is neither host memory nor a GPU.
  std::int64_t memory_other_place = 0;
  string_pool strings;
  std::array<std::int64_t, skip_reason_count> skipped{};
  bool paddle = false;  ///< an event showed Paddle's marks (category or thread id)

  void clear();
  [[nodiscard]] std::size_t size() const noexcept { return start_ns.size(); }
};

class event_parser {
 public:
  event_parser();
  ~event_parser();
  event_parser(event_parser const&) = delete;
  event_parser& operator=(event_parser const&) = delete;

  /// Parses `chunk` into `out` (cleared first). `paddle_schema`: the file announced Paddle's
  /// string schemaVersion before traceEvents, so every name gets its duration suffix removed.
  /// Throws input_error naming the event index on invalid JSON.
  void parse(event_chunk const& chunk, bool paddle_schema, std::string const& path,
             chunk_rows& out);

 private:
  /// simdjson's On-Demand parser. Its type depends on the instruction set the including file is
  /// built for (simdjson::ondemand names westmere's in event_parser.cpp, built for SSE4.2, and
  /// the fallback's elsewhere), so it is defined in event_parser.cpp alone: as a member here it
  /// was a different type in each file, one class with two definitions.
  struct engine;
  std::unique_ptr<engine> _engine;
};

}  // namespace tracesweep::chrome
