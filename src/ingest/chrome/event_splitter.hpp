// SPDX-License-Identifier: Apache-2.0
// Splits a Chrome-trace JSON stream at top-level event boundaries. It walks the top-level
// object (or bare array) itself, quote-, escape- and depth-aware, hands out the traceEvents
// array in chunks of whole events (each re-wrapped as a small JSON array that simdjson can
// parse on its own, far below simdjson's 4 GB document limit), and keeps the few other
// top-level values the reader needs, wherever they stand relative to traceEvents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tracesweep/event_table.hpp>

#include "ingest/chrome/byte_source.hpp"

namespace tracesweep::chrome {

/// The top-level values the reader uses (all optional in the file).
struct trace_header {
  bool bare_array = false;           ///< the file is `[ …events… ]`, not `{"traceEvents": …}`
  std::optional<std::int32_t> rank;  ///< distributedInfo.rank
  std::optional<std::int64_t> base_time_ns;  ///< baseTimeNanoseconds
  bool schema_version_is_string = false;     ///< Paddle writes "schemaVersion": "1.0.1"
  bool schema_version_seen_before_events = false;
  /// Paddle's ExtraInfo "Process Cpu Utilization" / "System Cpu Utilization" (fractions; Paddle
  /// writes them as strings), when present and numeric.
  std::optional<double> process_cpu_utilization, system_cpu_utilization;
  /// deviceProperties: one entry per GPU with a non-negative 32-bit id, in file order.
  struct device {
    std::int32_t id = 0;
    std::string name;
    input_info::gpu_properties properties;
  };
  std::vector<device> devices;
};

/// Whole events, as the text `[e0,e1,…]` followed by simdjson's padding.
struct event_chunk {
  std::uint64_t first_event = 0;  ///< index of e0 in traceEvents
  std::uint64_t byte_offset = 0;  ///< offset of e0 in the (decompressed) JSON text
  std::size_t events = 0;
  std::vector<char> text;  ///< size() = length + padding
  std::size_t length = 0;  ///< bytes of JSON in `text`
  /// No byte of the text is a backslash (the splitter saw none while it scanned the events):
  /// every string's text is the bytes between its quotes. False when one may be.
  bool backslash_free = false;
};

/// Whether the splitter may classify its 64-byte blocks with AVX-512 where the CPU has it (the
/// default); off, it takes the SSE2 path every x86-64 CPU has. For tests of both paths.
void allow_avx512_blocks(bool allowed) noexcept;

class event_splitter {
 public:
  /// `chunk_bytes`: a chunk is cut after the first event that brings it to this size.
  /// `max_value_bytes`: the longest event (with the whitespace before it) or used top-level
  /// value kept in memory; a longer one throws input_limit_error.
  event_splitter(byte_source& source, std::string path, std::size_t chunk_bytes,
                 std::uint64_t max_value_bytes = default_max_event_bytes);

  /// Fills `out` with the next chunk; false once traceEvents is exhausted, by which time the
  /// rest of the file has been read and checked and header() is complete. Throws input_error.
  bool next(event_chunk& out);

  [[nodiscard]] trace_header const& header() const noexcept { return _header; }
  /// Decompressed bytes read so far.
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return _base + _fill; }

 private:
  enum class phase { start, keys, events, done };

  // Window over the stream: bytes [0, _fill) of _buf hold stream offsets [_base, _base+_fill).
  bool refill();
  /// Makes _buf `bytes` long, keeping its first _fill bytes.
  void grow(std::size_t bytes);
  /// Throws when the bytes kept from _mark on would pass what one chunk and one value may take.
  void check_kept_bytes() const;
  /// Throws input_limit_error: `what` passed the limit (an event is named by its index).
  /// What passed the length limit: the current event (with the whitespace before it, or alone)
  /// or a top-level value the reader uses.
  enum class too_long { event_with_space, event, top_level_value };
  [[noreturn]] void fail_too_long(std::uint64_t offset, too_long what) const;
  int peek_nonspace();  ///< next non-space byte (not consumed), or -1 at the end of input
  void expect(char c, char const* what);
  std::string read_key();
  /// Consumes one JSON value starting at _pos; appends its text to `capture` when given.
  void skip_value(std::string* capture);
  /// Scans one value from _pos to its end without discarding bytes from `_mark` on.
  void scan_value();
  /// scan_value's parts, from the value's first byte at _pos past its end (`start`: its offset,
  /// for errors): a container (brackets outside strings counted, 64 bytes at a time), a string,
  /// a scalar (number, true, false, null).
  void scan_container(std::uint64_t start);
  /// scan_container's loop, classifying each 64-byte block with `classify` (SSE2 or AVX-512,
  /// picked at run time by what the CPU has).
  template <class Classify>
  void scan_container_by(std::uint64_t start, Classify classify);
  void scan_container_avx512(std::uint64_t start);
  void scan_string(std::uint64_t start);
  void scan_scalar();
  [[noreturn]] void fail_truncated(std::uint64_t start) const;
  /// next's first call: the byte order mark, then a bare array or the top-level keys.
  void read_start();
  /// `out` = the events from _mark to `last_end` as one JSON array (padded for simdjson).
  void emit_chunk(event_chunk& out, std::uint64_t last_end);
  void read_top_level_keys();  ///< until traceEvents' '[' or the closing '}'
  void apply_header_value(std::string const& key, std::string const& text);
  void finish();
  [[noreturn]] void fail(std::uint64_t offset, std::string const& why) const;
  [[nodiscard]] std::string at_byte(std::uint64_t offset) const;

  byte_source& _source;
  std::string _path;
  std::size_t _chunk_bytes;
  std::uint64_t _max_value_bytes;
  std::size_t _min_read;  ///< free bytes of _buf each read offers the source at least
  std::unique_ptr<char[]> _buf;
  std::size_t _capacity = 0;  ///< bytes of _buf
  std::size_t _pos = 0;
  std::size_t _fill = 0;
  std::uint64_t _base = 0;
  std::size_t _mark = static_cast<std::size_t>(-1);  ///< bytes from here on are kept
  bool _eof = false;
  phase _phase = phase::start;
  bool _seen_events = false;
  bool _chunk_backslash = false;  ///< a backslash among the bytes scanned since the chunk began
  std::uint64_t _event_index = 0;
  std::vector<char> _stack;  ///< open brackets while scanning a value
  trace_header _header;
};

}  // namespace tracesweep::chrome
