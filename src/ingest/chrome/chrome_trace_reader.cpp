// SPDX-License-Identifier: Apache-2.0
// The Chrome-trace reader: byte source → event splitter → event parser (one simdjson parser
// per thread, chunks in parallel) → rows merged into the table in file order → rank and
// baseTimeNanoseconds applied once the whole file (top-level keys after traceEvents
// included) has been read.
#include <tracesweep/error.hpp>
#include <tracesweep/ingest/chrome_trace_reader.hpp>
#include <tracesweep/task_threads.hpp>

#include "ingest/chrome/byte_source.hpp"
#include "ingest/chrome/chrome_source_reader.hpp"
#include "ingest/chrome/event_parser.hpp"
#include "ingest/chrome/event_splitter.hpp"
#include "ingest/ordered_pipeline.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace tracesweep {

namespace {

using namespace chrome;

/// A `[memory]` event without a usable ts or Bytes.
constexpr std::string_view skip_invalid_memory_event = "invalid_memory_event";
/// A Paddle memory event of a place other than host memory or a GPU (pinned, XPU, custom).
constexpr std::string_view skip_memory_place = "memory_place_not_cpu_or_gpu";

/// Why a file whose baseTimeNanoseconds moves `what` out of the accepted times is refused.
std::string base_moves_out(std::int64_t base, std::string_view what) {
  std::string why = "baseTimeNanoseconds ";
  why.append(std::to_string(base)).append(" moves ").append(what);
  why.append(" outside the accepted times (|t| < 2^62 ns)");
  return why;
}

/// One chunk on its way through the pipeline.
struct work_item {
  event_chunk chunk;
  chunk_rows rows;
  bool paddle_schema = false;
};

/// Appends parsed chunks to the table, in order.
class table_sink {
 public:
  /// `shapes`: record kernels' launch configurations (read_options::launch_shapes).
  table_sink(event_table& table, byte_source const& source, event_splitter const& splitter,
             bool shapes)
      : _shapes(shapes),
        _table(table),
        _source(source),
        _splitter(splitter),
        _first_row(table.size()),
        _first_memory(table.memory.size()),
        _first_metric(table.launch_metrics.size()) {}

  /// `text_end`: offset in the JSON text just past the chunk's last event.
  void merge(chunk_rows const& rows, std::uint64_t text_end) {
    _paddle |= rows.paddle;
    for (int r = 0; r < skip_reason_count; ++r)
      if (rows.skipped[r] > 0) _table.skip(to_string(static_cast<skip_reason>(r)), rows.skipped[r]);
    grow_side_tables(rows, text_end);
    merge_memory(rows);
    if (rows.size() == 0) return;
    _global.resize(rows.strings.size());
    for (std::size_t i = 0; i < rows.strings.size(); ++i)
      _global[i] = _table.strings().intern(rows.strings.at(static_cast<string_id>(i)));
    grow_for(rows.size(), text_end);
    append_rows(rows);
    add_side_rows(rows);
  }

  void finish(std::string const& path, trace_header const& header, read_options const& options) {
    auto const n = _table.size();
    if (n == _first_row) {
      std::int64_t skipped = 0;
      for (auto const& [reason, count] : _table.inputs().back().skipped) skipped += count;
      throw input_error(path, "traceEvents",
                        skipped > 0 ? "no usable events: all " + std::to_string(skipped) +
                                          " complete events were skipped"
                                    : "no usable events: no complete (\"X\") event");
    }
    std::int32_t const rank =
        header.rank ? *header.rank : std::max<std::int32_t>(options.fallback_rank, 0);
    std::int64_t const base = header.base_time_ns.value_or(0);
    set_memory_rank_and_base(path, rank, base);
    for (auto i = _first_row; i < n; ++i) {
      _table.rank[i] = rank;
      // Rows are in range on their own; the base is known only now (it may follow
      // traceEvents), so a base that moves one out of range is a defect of the whole file.
      if (base != 0 && (__builtin_add_overflow(_table.start_ns[i], base, &_table.start_ns[i]) ||
                        __builtin_add_overflow(_table.end_ns[i], base, &_table.end_ns[i]) ||
                        !time_in_range(_table.start_ns[i]) || !time_in_range(_table.end_ns[i])))
        throw input_error(path, "baseTimeNanoseconds", base_moves_out(base, "an event"));
    }
    auto& info = _table.inputs().back();
    info.format = header.schema_version_is_string || _paddle ? "paddle-json" : "kineto-json";
    info.clock_offset_ns = base;
    info.process_cpu_utilization = header.process_cpu_utilization;
    info.system_cpu_utilization = header.system_cpu_utilization;
    for (auto const& d : header.devices) {
      if (!d.name.empty()) info.device_names.try_emplace(d.id, d.name);
      info.device_properties.try_emplace(d.id, d.properties);
    }
    _table.finish_input(resolve_threads(options.threads));
  }

 private:
  /// `a` with the table's string ids for the chunk's.
  [[nodiscard]] collective_args global_args(collective_args a) const {
    for (auto* id : {&a.operation, &a.dtype, &a.process_group})
      if (*id != string_pool::npos) *id = _global[*id];
    return a;
  }
  /// The chunk's memory events; rank and base come in finish(). An event without an allocated
  /// total gets the device's running total: the last total seen plus the bytes of an event of
  /// the allocated pool (from 0).
  void merge_memory(chunk_rows const& rows) {
    if (rows.memory_skipped > 0) _table.skip(skip_invalid_memory_event, rows.memory_skipped);
    if (rows.memory_other_place > 0) _table.skip(skip_memory_place, rows.memory_other_place);
    auto const& m = rows.memory;
    for (std::size_t i = 0; i < m.size(); ++i) {
      auto& running = _allocated[m.device[i]];
      bool const derived = m.allocated[i] == memory_total_absent;
      auto const change = m.pool[i] == memory_pool::allocated ? m.bytes[i] : 0;
      std::int64_t allocated = m.allocated[i];
      if (derived && __builtin_add_overflow(running, change, &allocated))
        allocated = INT64_MAX;  // out of range: the table skips and counts it
      if (_table.append_memory({.time_ns = m.time_ns[i],
                                .rank = 0,
                                .device = m.device[i],
                                .thread = m.thread[i],
                                .bytes = m.bytes[i],
                                .pool = m.pool[i],
                                .allocated = allocated,
                                .reserved = m.reserved[i]}))
        running = allocated;
    }
  }

  void set_memory_rank_and_base(std::string const& path, std::int32_t rank, std::int64_t base) {
    auto& m = _table.memory;
    for (auto i = _first_memory; i < m.size(); ++i) {
      m.rank[i] = rank;
      if (base != 0 && (__builtin_add_overflow(m.time_ns[i], base, &m.time_ns[i]) ||
                        !time_in_range(m.time_ns[i])))
        throw input_error(path, "baseTimeNanoseconds", base_moves_out(base, "a memory event"));
    }
  }

  /// The count of something this input holds at the end, projected from `so_far` of it at
  /// `text_end` to the whole JSON text (for gzip: the file size times the expansion seen so far),
  /// with 2 % to spare.
  [[nodiscard]] double projected(std::size_t so_far, std::uint64_t text_end) const {
    auto const text_so_far = static_cast<double>(std::max<std::uint64_t>(text_end, 1));
    double text_total = static_cast<double>(_source.file_size());
    if (_source.compressed()) {
      auto const consumed =
          static_cast<double>(std::max<std::uint64_t>(_source.file_bytes_consumed(), 1));
      text_total *= static_cast<double>(_splitter.bytes_read()) / consumed;
    }
    return static_cast<double>(so_far) / text_so_far * std::max(text_total, text_so_far) * 1.02;
  }

  /// The capacity to reserve for `needed` items of which `first` came from earlier inputs, so
  /// that a column is not copied as it grows (the copy would double its peak memory); 0 when the
  /// capacity suffices. Never grows by less than 25 %: a low estimate must not turn into many
  /// small copies.
  [[nodiscard]] std::size_t growth(std::size_t needed, std::size_t capacity, std::size_t first,
                                   std::uint64_t text_end) const {
    if (needed <= capacity) return 0;
    auto const estimate = static_cast<double>(first) + projected(needed - first, text_end) + 1024.0;
    return static_cast<std::size_t>(
        std::max({estimate, static_cast<double>(needed), 1.25 * static_cast<double>(capacity)}));
  }

  /// The chunk's rows, their names and categories as the table's ids; rank 0 (finish() sets it:
  /// distributedInfo may come after traceEvents). _row_of[i]: chunk row i's table row.
  void append_rows(chunk_rows const& rows) {
    auto const n = rows.size();
    _names.resize(n), _categories.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      _names[i] = _global[rows.name[i]], _categories[i] = _global[rows.category[i]];
    event_rows batch;
    batch.start = rows.start_ns, batch.end = rows.end_ns, batch.kinds = rows.kind;
    batch.subkind = rows.subkind, batch.device = rows.device, batch.stream = rows.stream;
    batch.name = _names, batch.categories = _categories, batch.correlation = rows.correlation;
    batch.bytes = rows.bytes, batch.roles = rows.role;
    if (!rows.text_thread.empty()) {
      // A thread named by text only: a stable negative number from the string pool.
      _streams.assign(rows.stream.begin(), rows.stream.end());
      for (auto const& [i, text] : rows.text_thread)
        _streams[i] = -2 - static_cast<std::int64_t>(_global[text]);
      batch.stream = _streams;
    }
    auto row = _table.size();
    _table.append_rows(batch, _kept);
    _row_of.resize(n);
    for (std::size_t i = 0; i < n; ++i) _row_of[i] = _kept[i] != 0 ? row++ : kept_none;
  }

  /// The side tables' entries of the chunk's rows kept.
  void add_side_rows(chunk_rows const& rows) {
    auto each = [&](std::vector<std::uint32_t> const& at, auto&& add) {
      for (std::size_t k = 0; k < at.size(); ++k)
        if (auto const row = _row_of[at[k]]; row != kept_none) add(k, row);
    };
    each(rows.metric_row, [&](std::size_t k, std::size_t row) {
      _table.add_launch_metrics(rows.blocks_per_sm[k], rows.occupancy_pct[k], row);
    });
    each(rows.collective_row, [&](std::size_t k, std::size_t row) {
      _table.add_collective_args(global_args(rows.collective[k]), row);
    });
    each(rows.sync_row,
         [&](std::size_t k, std::size_t row) { _table.add_sync_wait(rows.sync[k], row); });
    each(rows.host_stream_row,
         [&](std::size_t k, std::size_t row) { _table.add_host_stream(rows.host_stream[k], row); });
    if (_shapes)
      each(rows.shape_row, [&](std::size_t k, std::size_t row) {
        _table.add_launch_shape({rows.grid[k], rows.block[k]}, row);
      });
  }

  /// Reserves the columns for the whole file from what was seen so far.
  void grow_for(std::size_t more, std::uint64_t text_end) {
    if (auto const n =
            growth(_table.size() + more, _table.start_ns.capacity(), _first_row, text_end))
      _table.reserve(n);
  }

  /// Likewise the memory events and the launch metrics, side tables of the rows.
  void grow_side_tables(chunk_rows const& rows, std::uint64_t text_end) {
    auto& m = _table.memory;
    if (auto const n =
            growth(m.size() + rows.memory.size(), m.time_ns.capacity(), _first_memory, text_end))
      m.reserve(n);
    auto& lm = _table.launch_metrics;
    if (auto const n =
            growth(lm.size() + rows.metric_row.size(), lm.row.capacity(), _first_metric, text_end))
      lm.reserve(n);
  }

  bool _shapes;
  event_table& _table;
  byte_source const& _source;
  event_splitter const& _splitter;
  std::size_t _first_row;
  std::size_t _first_memory;
  std::size_t _first_metric;
  std::map<std::int32_t, std::int64_t> _allocated;  ///< running allocated total per device
  std::vector<string_id> _global;
  // A chunk's columns as the table takes them, their storage kept for the next chunk.
  static constexpr std::size_t kept_none = std::numeric_limits<std::size_t>::max();
  std::vector<string_id> _names, _categories;
  std::vector<std::int64_t> _streams;
  std::vector<std::uint8_t> _kept;
  std::vector<std::size_t> _row_of;  ///< chunk row → table row, kept_none when not kept
  bool _paddle = false;
};

void read_sequential(event_splitter& splitter, table_sink& sink, std::string const& path) {
  event_parser parser;
  work_item item;
  while (splitter.next(item.chunk)) {
    parser.parse(item.chunk, splitter.header().schema_version_seen_before_events, path, item.rows);
    sink.merge(item.rows, item.chunk.byte_offset + item.chunk.length);
  }
}

void read_parallel(event_splitter& splitter, table_sink& sink, std::string const& path,
                   unsigned threads) {
  tbb::enumerable_thread_specific<event_parser> parsers;
  ingest::ordered_pipeline<work_item>(
      threads,
      [&](work_item& item) {
        if (!splitter.next(item.chunk)) return false;
        item.paddle_schema = splitter.header().schema_version_seen_before_events;
        return true;
      },
      [&](work_item& item) {
        parsers.local().parse(item.chunk, item.paddle_schema, path, item.rows);
      },
      [&](work_item& item) { sink.merge(item.rows, item.chunk.byte_offset + item.chunk.length); });
}

}  // namespace

bool is_chrome_trace(std::string_view head) noexcept {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return true;  // gzip: only JSON traces come compressed
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);  // UTF-8 BOM
  auto const i = head.find_first_not_of(" \n\r\t");
  return i == std::string_view::npos || head[i] == '{' || head[i] == '[';
}

namespace chrome {

void read_chrome_source(byte_source& source, std::string const& path, event_table& table,
                        read_options const& options, std::size_t chunk_bytes) {
  table.begin_input(path, "kineto-json");
  try {
    event_splitter splitter(source, path, chunk_bytes, options.max_event_bytes);
    table_sink sink(table, source, splitter, options.launch_shapes);
    // Results do not depend on the count (chunks are cut by bytes and merged in order).
    unsigned const threads = resolve_threads(options.threads);
    if (threads == 1)
      read_sequential(splitter, sink, path);
    else
      read_parallel(splitter, sink, path, threads);
    sink.finish(path, splitter.header(), options);
  } catch (...) {
    table.abandon_input();
    throw;
  }
}

}  // namespace chrome

namespace {

/// A source that tells read_options::progress the file bytes consumed after every read.
class reporting_source final : public chrome::byte_source {
 public:
  reporting_source(chrome::byte_source& inner, read_progress& progress)
      : _inner(inner), _progress(progress) {}
  std::size_t read(char* dst, std::size_t n) override {
    auto const got = _inner.read(dst, n);
    _progress.bytes_done.store(_inner.file_bytes_consumed(), std::memory_order_relaxed);
    return got;
  }
  [[nodiscard]] std::uint64_t file_bytes_consumed() const noexcept override {
    return _inner.file_bytes_consumed();
  }
  [[nodiscard]] std::uint64_t file_size() const noexcept override { return _inner.file_size(); }
  [[nodiscard]] bool compressed() const noexcept override { return _inner.compressed(); }

 private:
  chrome::byte_source& _inner;
  read_progress& _progress;
};

}  // namespace

void read_chrome_trace(std::string const& path, event_table& table, read_options const& options) {
  auto source = open_byte_source(path, options.max_inflate_ratio);
  if (!options.progress) return read_chrome_source(*source, path, table, options);
  reporting_source reporting(*source, *options.progress);
  read_chrome_source(reporting, path, table, options);
}

}  // namespace tracesweep
