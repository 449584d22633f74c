// SPDX-License-Identifier: Apache-2.0
// The columnar event store: one table of events from one or more input files, as a struct of
// arrays. Times are int64 nanoseconds on the input's own clock. Readers append; analyses read.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tracesweep/event_kind.hpp>
#include <tracesweep/string_pool.hpp>

namespace tracesweep {

/// What was read from one input file.
struct input_info {
  std::string path;
  std::string format;               ///< "nsys-sqlite", "kineto-json", "paddle-json", …
  std::vector<std::int32_t> ranks;  ///< distinct ranks seen, ascending
  std::int64_t events = 0;          ///< rows appended to the table
  /// The rows appended, per event_kind: what a reading set of `read_options::kinds` holds.
  std::array<std::int64_t, event_kind_count> events_by_kind{};
  /// Kernels, memcpys and memsets appended: the same whichever host kinds were read too.
  [[nodiscard]] std::int64_t device_events() const noexcept {
    std::int64_t n = 0;
    for (int k = 0; k < event_kind_count; ++k)
      if (is_device_activity(static_cast<event_kind>(k)))
        n += events_by_kind[static_cast<std::size_t>(k)];
    return n;
  }
  std::map<std::string, std::int64_t> skipped;  ///< rows not kept, counted per reason
  /// What the reader added to the file's own times (Kineto: baseTimeNanoseconds); 0 for none.
  std::int64_t clock_offset_ns = 0;
  // Optional metadata some formats carry (nsys: TARGET_INFO_* and ThreadNames); empty when absent.
  /// Wall-clock start of the capture, ns since the Unix epoch (nsys: session start utcEpochNs).
  std::optional<std::int64_t> session_start_utc_ns;
  /// GPU name by device id, the id in the device column (nsys: TARGET_INFO_GPU, or before 2021.3
  /// TARGET_INFO_CUDA_GPU); the first row wins when an id repeats.
  std::map<std::int32_t, std::string> device_names;
  /// A GPU's properties as the input records them (Kineto/Paddle deviceProperties, nsys
  /// TARGET_INFO_GPU); -1 where unknown.
  struct gpu_properties {
    std::int64_t total_memory_bytes = -1;
    std::int32_t sm_count = -1;
    std::int32_t compute_major = -1, compute_minor = -1;
    friend bool operator==(gpu_properties const&, gpu_properties const&) = default;
  };
  /// By device id, as device_names (the first entry wins when an id repeats).
  std::map<std::int32_t, gpu_properties> device_properties;
  /// Thread name by host thread id, the id in the stream column of host events (nsys: tid =
  /// globalTid & 0xFFFFFF). Keyed by tid alone: when two processes share a tid, the first row of
  /// the producer's table wins.
  std::map<std::int64_t, std::string> thread_names;
  /// CPU utilization over the capture as a fraction (Paddle's ExtraInfo "Process Cpu
  /// Utilization", which passes 1 on several cores, and "System Cpu Utilization").
  std::optional<double> process_cpu_utilization;
  std::optional<double> system_cpu_utilization;
  /// nsys, when read_options::gpu_contexts asks: the CUDA context ids of each (rank = process,
  /// device) with GPU operations (kernels, memcpys, memsets with start > 0), ascending.
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::int64_t>> gpu_contexts;
  /// nsys, when read_options::gpu_contexts asks: the profiler's CUDA flush/stop overhead ranges
  /// (PROFILER_OVERHEAD) per rank (process), which nsys's gpu_gaps and gpu_time_util count as
  /// GPU operations.
  struct overhead_range {
    std::int32_t rank = 0;
    std::int64_t start_ns = 0, end_ns = 0;
  };
  std::vector<overhead_range> profiler_overhead;
  /// The operating system's process id of each rank where the rank is not it (nsys: one rank
  /// per process, numbered as read_nsys_sqlite says); empty otherwise.
  std::map<std::int32_t, std::int64_t> process_ids;
  /// The reader numbered the ranks itself (nothing in the input names them): when they collide
  /// with the ranks another input claims, read_inputs moves them past those.
  bool ranks_numbered_by_reader = false;
  /// The process id of `rank`: its process_ids entry, else the rank itself.
  [[nodiscard]] std::int64_t process_id(std::int32_t rank) const {
    auto const it = process_ids.find(rank);
    return it == process_ids.end() ? rank : it->second;
  }
};

/// One event, as a reader hands it to the table.
struct event {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  event_kind kind = event_kind::other;
  std::uint8_t subkind = 0;  ///< copy_kind for memcpy, range_style for user_range, else 0
  std::int32_t rank = 0;
  std::int32_t device = -1;  ///< GPU ordinal for device activity; -1 for host events
  std::int64_t stream = -1;  ///< CUDA stream for device activity, thread id for host events
  string_id name = 0;
  string_id category = 0;  ///< the producer's own category (Chrome `cat`, nsys table)
  std::int64_t correlation = -1;
  std::int64_t bytes = 0;
  event_role role{};  ///< what the reader saw in the category (see event_role)
};

/// A batch of events as columns, as a reader holds them: append_rows takes it whole. Every span is
/// as long as `start`, but one with a constant beside it may be empty: every row has the constant
/// then (`bytes` empty: no row carries bytes).
struct event_rows {
  std::span<std::int64_t const> start, end;
  std::span<event_kind const> kinds;
  event_kind kind = event_kind::other;
  std::span<std::uint8_t const> subkind;
  std::span<std::int32_t const> ranks;
  std::int32_t rank = 0;
  std::span<std::int32_t const> device;
  std::span<std::int64_t const> stream;
  std::span<string_id const> name;
  std::span<string_id const> categories;
  string_id category = 0;
  std::span<std::int64_t const> correlation;
  std::span<std::int64_t const> bytes;
  std::span<event_role const> roles;
  event_role role{};
  /// 1 for a row the caller drops itself (counted under its own reason); empty: none.
  std::span<std::uint8_t const> dropped;
  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
};

/// Optional side table: occupancy estimates some producers record per kernel (Chrome-trace args
/// "blocks per SM" and "est. achieved occupancy %"). One entry per kernel row that carries either,
/// `row` ascending; NaN where that arg was absent. Empty when no input has them.
struct kernel_launch_metrics {
  std::vector<std::uint64_t> row;
  std::vector<double> blocks_per_sm;
  std::vector<double> est_occupancy_pct;
  [[nodiscard]] std::size_t size() const noexcept { return row.size(); }
  void reserve(std::size_t n) {
    row.reserve(n), blocks_per_sm.reserve(n), est_occupancy_pct.reserve(n);
  }
};

/// A GPU operation's launch details as nsys records them (read only when a report asks:
/// read_options::launch_details). -1 where the export lacks the value or it does not apply.
struct device_details {
  std::int64_t context = -1;
  std::int64_t green_context = -1;
  std::array<std::int32_t, 3> grid{-1, -1, -1};   ///< kernels
  std::array<std::int32_t, 3> block{-1, -1, -1};  ///< kernels
  std::int32_t registers_per_thread = -1;         ///< kernels
  std::int64_t static_shared_bytes = -1;          ///< kernels
  std::int64_t dynamic_shared_bytes = -1;         ///< kernels
  /// Memory kinds (ENUM_CUDA_MEM_KIND: 0 Pageable … 7 Unknown): a memcpy's source and
  /// destination; a memset's memory in `src_kind`.
  std::int16_t src_kind = -1, dst_kind = -1;
  friend bool operator==(device_details const&, device_details const&) = default;
};

/// Optional per-row data a reader records for some rows only, on request: one entry per such
/// row, `row` ascending. Empty unless a reader was asked for it.
template <class T>
struct row_side_table {
  std::vector<std::uint64_t> row;
  std::vector<T> values;
  [[nodiscard]] std::size_t size() const noexcept { return row.size(); }
  /// The value of row `r`, or nullptr when it has none (a binary search of `row`).
  [[nodiscard]] T const* find(std::size_t r) const noexcept {
    auto const at = std::lower_bound(row.begin(), row.end(), std::uint64_t{r});
    return at != row.end() && *at == r ? &values[static_cast<std::size_t>(at - row.begin())]
                                       : nullptr;
  }
};

/// The launch details of device rows (read_options::launch_details): per row an index into
/// `distinct`, where each set of details is kept once (a run's millions of kernels and copies
/// repeat a few hundred): 12 bytes a row where the details take 64.
struct device_details_table : row_side_table<std::uint32_t> {
  std::vector<device_details> distinct;
  /// The details of entry k (row[k]'s).
  [[nodiscard]] device_details const& at(std::size_t k) const { return distinct[values[k]]; }
  /// The details of row `r`, or nullptr when it has none.
  [[nodiscard]] device_details const* details_of(std::size_t r) const noexcept {
    auto const* id = find(r);
    return id ? &distinct[*id] : nullptr;
  }
};

/// A kernel's launch configuration: grid and block dimensions.
struct launch_shape {
  std::array<std::int32_t, 3> grid{-1, -1, -1};
  std::array<std::int32_t, 3> block{-1, -1, -1};
  friend bool operator==(launch_shape const&, launch_shape const&) = default;
};

/// The launch configurations of kernel rows (read_options::launch_shapes): per row an index into
/// `distinct`, where each configuration is kept once (a run of millions of kernels launches a
/// few hundred): 12 bytes a kernel where device_details take 88.
struct launch_shape_table : row_side_table<std::uint32_t> {
  std::vector<launch_shape> distinct;
  /// The configuration of row `r`, or nullptr when it has none.
  [[nodiscard]] launch_shape const* shape_of(std::size_t r) const noexcept {
    auto const* id = find(r);
    return id ? &distinct[*id] : nullptr;
  }
};

/// Where a host range came from, as nsys's NVTX trace reports name it (read only when a report
/// asks: read_options::range_sources).
struct range_source {
  std::int64_t id = -1;         ///< the producer's id of the range (nsys: the NVTX_EVENTS rowid)
  bool domain_in_name = false;  ///< the row's name starts with its NVTX domain's name and ':'
  friend bool operator==(range_source const&, range_source const&) = default;
};

/// The range_source of host range rows (read_options::range_sources).
using range_source_table = row_side_table<range_source>;

/// What a trace records of a collective kernel's operation (Kineto's NCCL kernel args). String
/// ids are the table's; string_pool::npos and -1 where the arg is absent.
struct collective_args {
  string_id operation = string_pool::npos;      ///< "Collective name": allreduce, allgather, …
  string_id dtype = string_pool::npos;          ///< "dtype": Float, BFloat16, …
  string_id process_group = string_pool::npos;  ///< "Process Group Name"
  std::int64_t in_elements = -1;                ///< "In msg nelems"
  std::int64_t out_elements = -1;               ///< "Out msg nelems"
  std::int64_t group_size = -1;                 ///< "Group size"
  friend bool operator==(collective_args const&, collective_args const&) = default;
};

/// The collective_args of kernel rows whose event carries any of them, and of the host records of
/// collectives in older Kineto traces (`nccl:*` annotations, `c10d::*` ops: operation, "Input
/// type", "Input Dims"), which the collectives table reads around a kernel's launch (always read).
using collective_args_table = row_side_table<collective_args>;

/// What a CUDA synchronization record says it waits for (Kineto's cuda_sync args "wait_on_stream"
/// and "wait_on_cuda_event_record_corr_id": an Event Sync or Stream Wait Event waits for the work
/// a cudaEventRecord call captured on a stream); -1 where the arg is absent or negative.
struct sync_wait {
  std::int64_t stream = -1;              ///< the stream the awaited event was recorded on
  std::int64_t record_correlation = -1;  ///< the correlation id of that cudaEventRecord call
  friend bool operator==(sync_wait const&, sync_wait const&) = default;
};

/// The sync_wait of synchronization rows that carry either arg (always read).
using sync_wait_table = row_side_table<sync_wait>;

/// The "stream" arg of host rows that carry one as a number (Chrome-trace JSON: a Triton cpu_op
/// launching on stream 0, MTIA's mtia_ccp_events), which the row's stream column cannot hold (it
/// holds the thread). Always read; no analysis of tracesweep's reads it (Python's
/// HTA facade does: HTA counts such rows as GPU rows).
using host_stream_table = row_side_table<std::int64_t>;

/// The allocator pool a memory event's bytes change: what tensors hold (allocated), or what the
/// caching allocator holds from the driver (reserved; Paddle's ReservedAllocate/ReservedFree).
enum class memory_pool : std::uint8_t { allocated = 0, reserved = 1 };

/// One allocator record (Kineto's `[memory]` instant event, Paddle's Allocate/Free/
/// ReservedAllocate/ReservedFree, an nsys memory usage row), as a reader hands it to the table.
struct memory_event {
  std::int64_t time_ns = 0;
  std::int32_t rank = 0;
  std::int32_t device = -1;  ///< GPU ordinal; -1 for host (CPU) memory
  std::int64_t thread = -1;  ///< the host thread that allocated (as `stream` of host rows)
  std::int64_t bytes = 0;    ///< signed change of `pool`: > 0 an allocation, < 0 a free
  memory_pool pool = memory_pool::allocated;
  /// The device's allocated total after the event. A reader that derives it (a trace without
  /// totals) may give a negative one: memory allocated before the capture, freed during it.
  std::int64_t allocated = 0;
  std::int64_t reserved = 0;  ///< the device's reserved (cached) total after the event
};

/// Optional side table: memory events, one entry per event, in file order within an input.
/// They are not rows of the event table (an instant event occupies nothing, and no analysis
/// of rows, kind counts or event totals sees them); the memory analyses read only this table.
/// Empty when no input has them.
struct memory_events {
  std::vector<std::int64_t> time_ns;
  std::vector<std::int32_t> input;  ///< index into inputs()
  std::vector<std::int32_t> rank;
  std::vector<std::int32_t> device;
  std::vector<std::int64_t> thread;
  std::vector<std::int64_t> bytes;
  std::vector<memory_pool> pool;
  std::vector<std::int64_t> allocated;
  std::vector<std::int64_t> reserved;
  [[nodiscard]] std::size_t size() const noexcept { return time_ns.size(); }
  void reserve(std::size_t n) {
    time_ns.reserve(n), input.reserve(n), rank.reserve(n), device.reserve(n), thread.reserve(n);
    bytes.reserve(n), pool.reserve(n), allocated.reserve(n), reserved.reserve(n);
  }
};

/// Reasons a row can be rejected by the table itself.
inline constexpr std::string_view skip_end_before_start = "end_before_start";
inline constexpr std::string_view skip_time_out_of_range = "time_out_of_range";
inline constexpr std::string_view skip_duration_out_of_range = "duration_out_of_range";
inline constexpr std::string_view skip_bytes_out_of_range = "bytes_out_of_range";
/// A memory event with a time outside time_in_range, or |bytes| or a |total| ≥ bytes_limit.
inline constexpr std::string_view skip_memory_out_of_range = "memory_event_out_of_range";

/// The accepted range of times: |t| < 2^62 ns (about 146 years either side of the clock's zero),
/// and end − start < 2^62. Within it the difference of any two times fits in int64, so no
/// analysis has to check a subtraction; a row outside it is skipped and counted, never wrapped.
inline constexpr std::int64_t time_limit_ns = std::int64_t{1} << 62;
/// Byte counts likewise: 0 <= bytes < 2^62, so that sums of a few stay far from overflow.
inline constexpr std::int64_t bytes_limit = std::int64_t{1} << 62;
[[nodiscard]] constexpr bool time_in_range(std::int64_t t) noexcept {
  return t > -time_limit_ns && t < time_limit_ns;
}

class event_table;

/// Whether `row` is a host range a user marked (an NVTX push/pop or start/end range, a user
/// annotation), not an instant mark.
[[nodiscard]] bool is_host_range(event_table const& t, std::size_t row) noexcept;

class event_table {
 public:
  // Columns: all the same length, row i is one event.
  std::vector<std::int64_t> start_ns;
  std::vector<std::int64_t> end_ns;
  std::vector<event_kind> kind;
  std::vector<std::uint8_t> subkind;
  std::vector<std::int32_t> rank;
  std::vector<std::int32_t> device;
  std::vector<std::int64_t> stream;
  std::vector<string_id> name;
  std::vector<string_id> category;
  /// The correlation id (event::correlation) where it fits in 32 bits; wide_correlation where
  /// it does not, the id then kept in wide_correlations. Read it with correlation_of.
  std::vector<std::int32_t> correlation;
  std::vector<event_role> role;
  /// The correlation ids of the rows whose id does not fit the column: empty but for unusual
  /// producers (CUPTI's ids count up from 1 per process and fit below 2^31 calls).
  row_side_table<std::int64_t> wide_correlations;
  /// The byte count of the rows that carry one (memcpys, memsets; a Chrome event's args.bytes),
  /// nonzero ones only: most rows carry none, so it is no column. Read it with bytes_of.
  row_side_table<std::int64_t> byte_counts;
  /// Optional: see kernel_launch_metrics.
  kernel_launch_metrics launch_metrics;
  /// Optional: see memory_events.
  memory_events memory;
  /// Optional: see device_details_table.
  device_details_table launch_details;
  /// Optional: see launch_shape_table.
  launch_shape_table launch_shapes;
  /// Optional: see range_source_table.
  range_source_table range_sources;
  /// See collective_args_table.
  collective_args_table collectives;
  /// See sync_wait_table.
  sync_wait_table sync_waits;
  /// See host_stream_table.
  host_stream_table host_streams;

  /// Registers an input file; events appended afterwards belong to it until the next call.
  std::int32_t begin_input(std::string path, std::string format);
  /// Appends one event of the current input. An event with end < start, a time outside
  /// time_in_range, a duration of 2^62 ns or more, or bytes outside [0, 2^62) is not kept: it is
  /// counted under skip_end_before_start, skip_time_out_of_range, skip_duration_out_of_range or
  /// skip_bytes_out_of_range, and false is returned.
  bool append(event const& e);
  /// Appends the rows of `rows` in order, each as append(event) would take or skip it (and counts
  /// it so), column by column; the caller's dropped rows are neither appended nor counted.
  /// `kept[i]` says afterwards whether row i is in the table. A reader's batch at a time.
  void append_rows(event_rows const& rows, std::vector<std::uint8_t>& kept);
  /// Appends one memory event of the current input; one outside the accepted ranges is counted
  /// under skip_memory_out_of_range and false is returned.
  bool append_memory(memory_event const& e);
  /// Records launch metrics (NaN = absent) for `row`, after those of every earlier row; so the
  /// other add_ functions for their side tables.
  void add_launch_metrics(double blocks_per_sm, double est_occupancy_pct, std::size_t row);
  /// Records the launch details of `row`.
  void add_device_details(device_details const& d, std::size_t row);
  /// Records the launch configuration of `row`.
  void add_launch_shape(launch_shape const& s, std::size_t row);
  /// Records the source of `row`.
  void add_range_source(range_source const& s, std::size_t row);
  /// Records the collective args of `row`.
  void add_collective_args(collective_args const& a, std::size_t row);
  /// Records what the synchronization row `row` waits for.
  void add_sync_wait(sync_wait const& w, std::size_t row);
  /// Records the stream arg of the host row `row`.
  void add_host_stream(std::int64_t stream, std::size_t row);
  /// Counts a row the reader itself dropped, under `reason`, for the current input.
  void skip(std::string_view reason, std::int64_t n = 1);
  /// Fills inputs()[i].ranks from the rank column; readers call it when an input is done, with the
  /// threads they read on (a count, resolve_threads first) to share the pass over its rows.
  void finish_input(unsigned threads = 1);
  /// Removes every row of the current input and forgets it (a fatal error mid-file).
  void abandon_input();
  /// Renumbers the ranks of the current input, once finished: its i-th rank in ascending order
  /// becomes `first + i`, in its rows, memory events, GPU contexts and profiler overhead. The rows
  /// are rewritten in chunks on `threads` threads (a count).
  void renumber_input_ranks(std::int32_t first, unsigned threads = 1);
  /// Renumbers the ranks of the current input, once finished, as `to` says: (old, new) pairs
  /// sorted by old rank, naming every rank of its rows and memory events, new ranks distinct.
  /// Process ids follow their ranks. The rows are rewritten in chunks on `threads` threads.
  void renumber_input_ranks(std::span<std::pair<std::int32_t, std::int32_t> const> to,
                            unsigned threads = 1);
  /// Adds `offset` to every rank of input `k` (finished), as renumber_input_ranks does; the
  /// caller keeps the ranks within int32.
  void shift_input_ranks(std::size_t k, std::int32_t offset);
  /// The memory events [first, end) of the current input.
  [[nodiscard]] std::pair<std::size_t, std::size_t> current_input_memory() const noexcept {
    return {_current_input_first_memory, memory.size()};
  }
  /// Keeps the rows i with keep_row[i] != 0 and the memory events j with keep_memory[j] != 0
  /// (spans as long as the table and the memory table), in order; launch metrics follow their
  /// rows, as do launch details, launch shapes and range sources. Each input's ranks are recomputed
  /// from the rows kept; its `events` (rows read) stay.
  void keep(std::span<std::uint8_t const> keep_row, std::span<std::uint8_t const> keep_memory);

  void reserve(std::size_t rows);
  [[nodiscard]] std::size_t size() const noexcept { return start_ns.size(); }
  /// The index into inputs() of the input `row` came from. An input's rows are contiguous.
  [[nodiscard]] std::int32_t input_of(std::size_t row) const noexcept {
    if (_input_first_row.size() <= 1) return 0;
    auto const at = std::upper_bound(_input_first_row.begin(), _input_first_row.end(), row);
    return static_cast<std::int32_t>(at - _input_first_row.begin() - 1);
  }
  /// The process id of `row`'s rank (input_info::process_id of its input).
  [[nodiscard]] std::int64_t process_id_of(std::size_t row) const {
    return _inputs[static_cast<std::size_t>(input_of(row))].process_id(rank[row]);
  }
  /// The rows [first, end) of input `k`.
  [[nodiscard]] std::pair<std::size_t, std::size_t> input_rows(std::size_t k) const noexcept {
    auto const end = k + 1 < _input_first_row.size() ? _input_first_row[k + 1] : size();
    return {_input_first_row[k], end};
  }
  /// The correlation id of `row` as appended (-1 when it had none).
  [[nodiscard]] std::int64_t correlation_of(std::size_t row) const noexcept {
    auto const c = correlation[row];
    return c != wide_correlation ? c : wide_correlation_of(row);
  }
  /// The marker of the correlation column for an id kept in wide_correlations.
  static constexpr std::int32_t wide_correlation = std::numeric_limits<std::int32_t>::min();
  /// The bytes of `row` (event::bytes as appended; 0 when it had none), by a binary search of
  /// byte_counts.
  [[nodiscard]] std::int64_t bytes_of(std::size_t row) const noexcept;
  [[nodiscard]] bool empty() const noexcept { return start_ns.empty(); }

  /// The bytes the table's events take, by part: what memory per event counts. Sizes, not
  /// capacities: readers reserve a column once, and capacity never written is never resident.
  struct footprint {
    std::size_t row_columns = 0;  ///< the columns
    /// Byte counts, wide correlations, launch metrics and details, range sources.
    std::size_t side_tables = 0;
    std::size_t memory_events = 0;  ///< the memory events' columns
    std::size_t strings = 0;        ///< the string pool (string_pool::memory_bytes)
    [[nodiscard]] std::size_t total() const noexcept {
      return row_columns + side_tables + memory_events + strings;
    }
  };
  [[nodiscard]] footprint memory_footprint() const noexcept;

  [[nodiscard]] string_pool& strings() noexcept { return _strings; }
  [[nodiscard]] string_pool const& strings() const noexcept { return _strings; }
  [[nodiscard]] std::vector<input_info>& inputs() noexcept { return _inputs; }
  [[nodiscard]] std::vector<input_info> const& inputs() const noexcept { return _inputs; }

 private:
  string_pool _strings;
  /// Appends `c` to the correlation column, as row `row`.
  void append_correlation(std::int64_t c, std::size_t row);
  /// kept[i] = 1 for each row of `r` append would take, 0 for the others (the rejected ones
  /// counted); the number taken.
  std::size_t mark_kept(event_rows const& r, std::vector<std::uint8_t>& kept);
  /// Counts `n` appended rows of kind `k` for the current input.
  void count_appended(event_kind k, std::int64_t n) noexcept;
  [[nodiscard]] std::int64_t wide_correlation_of(std::size_t row) const noexcept;
  /// Gives every rank r of input `k` renumbered(r), with renumbered = make() (one per chunk of
  /// rows, which may keep a memo), its rows in chunks on `threads` threads (event_table.cpp).
  template <class MakeRenumbered>
  void renumber_input(std::size_t k, MakeRenumbered const& make, unsigned threads);

  std::vector<input_info> _inputs;
  /// The first row of each input, ascending: row i is of the last input whose first row ≤ i.
  std::vector<std::size_t> _input_first_row;
  std::size_t _current_input_first_row = 0;
  std::size_t _current_input_first_memory = 0;
  /// One hash of a launch configuration's six dimensions (FNV-1a on the words).
  struct shape_hash {
    std::size_t operator()(std::array<std::int32_t, 6> const& dims) const noexcept {
      std::uint64_t h = 0xcbf29ce484222325ULL;
      for (auto d : dims) h = (h ^ static_cast<std::uint32_t>(d)) * 0x100000001b3ULL;
      return static_cast<std::size_t>(h ^ (h >> 32));
    }
  };
  /// launch_shapes.distinct's index of each configuration (grid, then block).
  std::unordered_map<std::array<std::int32_t, 6>, std::uint32_t, shape_hash> _launch_shape_ids;
  /// One hash of a device_details' fields (FNV-1a on the words).
  struct details_hash {
    std::size_t operator()(device_details const& d) const noexcept;
  };
  /// launch_details.distinct's index of each set of details.
  std::unordered_map<device_details, std::uint32_t, details_hash> _launch_detail_ids;
};

}  // namespace tracesweep
