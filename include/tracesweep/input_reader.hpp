// SPDX-License-Identifier: Apache-2.0
// Reading inputs into the event table. The format is detected from the content, never the name;
// each format has its own reader (ingest/…) behind this one entry point.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/error.hpp>
#include <tracesweep/event_table.hpp>

namespace tracesweep {

/// Which of a kernel's names goes into the name column (nsys exports carry all three; Chrome
/// traces carry one, used for every choice).
enum class kernel_naming { demangled, base, mangled };

/// A set of event kinds, as bits (kind_bit) of read_options::kinds.
[[nodiscard]] constexpr std::uint32_t kind_bit(event_kind k) noexcept {
  return std::uint32_t{1} << static_cast<unsigned>(k);
}
inline constexpr std::uint32_t all_event_kinds = (std::uint32_t{1} << event_kind_count) - 1;
/// Kernels, memcpys and memsets: the GPU operations several analyses read alone.
inline constexpr std::uint32_t gpu_operation_kinds =
    kind_bit(event_kind::kernel) | kind_bit(event_kind::memcpy) | kind_bit(event_kind::memset);

/// Limits that keep a tiny hostile file from taking unbounded memory or time. Real traces stay
/// far below them: Kineto events are a few KB, and real .json.gz files inflate 15-30×.
inline constexpr std::uint64_t default_max_event_bytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t default_max_inflate_ratio = 200;

/// How far reading has come, for a progress display: read_inputs names each file as it starts,
/// the readers advance `bytes_done` as they go (from any thread), and a display polls it.
class read_progress {
 public:
  /// A new file of `size` bytes begins.
  void begin_file(std::string path, std::uint64_t size) {
    std::lock_guard lock(_m);
    _path = std::move(path);
    bytes_total.store(size);
    bytes_done.store(0);
  }
  [[nodiscard]] std::string path() const {
    std::lock_guard lock(_m);
    return _path;
  }
  std::atomic<std::uint64_t> bytes_done{0};   ///< of the current file (compressed bytes of gzip)
  std::atomic<std::uint64_t> bytes_total{0};  ///< the current file's size

 private:
  mutable std::mutex _m;
  std::string _path;
};

/// Where each input's ranks come from when several inputs are read together.
enum class rank_source {
  claimed,  ///< what each file says (nsys: its processes; Chrome: distributedInfo.rank, else
            ///< fallback_rank); two inputs claiming one rank are an error
  path,     ///< the rank number in the file's name (rank_in_file_name); one rank per input
  order,    ///< inputs numbered in the order given: an input's ranks follow the previous ones'
};

struct read_options {
  unsigned threads = 0;  ///< 0 = all hardware threads
  /// Rank for a file that does not name its own (Chrome traces without distributedInfo): the
  /// file's 0-based index among the inputs sorted by path. -1 = 0.
  std::int32_t fallback_rank = -1;
  kernel_naming kernel_names = kernel_naming::demangled;
  /// nsys: also read input_info::gpu_contexts and profiler_overhead (one more pass over the GPU
  /// tables: only the reports that print them ask).
  bool gpu_contexts = false;
  /// nsys: also read each GPU operation's launch details (event_table::launch_details).
  bool launch_details = false;
  /// Also record each kernel's launch configuration (grid, block) in event_table::launch_shapes:
  /// nsys reads its kernels' gridX…blockZ, a Chrome trace its kernels' "grid" and "block" args.
  /// The diagnosis's long tails ask for it.
  bool launch_shapes = false;
  /// nsys: also record each NVTX range's rowid and whether its name carries its domain's
  /// (event_table::range_sources).
  bool range_sources = false;
  /// nsys: read the device tables' stream column. An analysis that does not use it (the per-name
  /// GPU and API summaries) turns this off: each column costs about a tenth of an nsys read.
  /// Rows then hold -1. Chrome readers always fill it.
  bool streams = true;
  /// nsys: read every table's correlation column; the same (the summary turns it off too).
  bool correlations = true;
  /// The event kinds the caller needs (kind_bit set). A reader may leave rows of other kinds
  /// out without reading them (the nsys reader skips whole tables); it may also keep them. The
  /// checks on the file stay the same: an nsys export without GPU activity is an error even
  /// when only host kinds are asked for.
  std::uint32_t kinds = all_event_kinds;
  /// JSON: the longest single value kept in memory (one event with the whitespace before it, or
  /// a top-level value the reader uses). Longer is input_limit_error (limit::event_bytes).
  std::uint64_t max_event_bytes = default_max_event_bytes;
  /// gzip: the most bytes inflated per compressed byte, checked once 64 MiB have been inflated.
  /// More is input_limit_error (limit::inflate_ratio): a decompression bomb.
  std::uint64_t max_inflate_ratio = default_max_inflate_ratio;
  /// Where the readers report how far they are (none when null).
  read_progress* progress = nullptr;
  /// read_inputs: where each input's ranks come from.
  rank_source ranks_from = rank_source::claimed;
  /// read_inputs: keep duplicated events (rows of one input with a correlation id, equal in
  /// kind, name, start, end, rank, device, stream or thread and correlation; memory events equal
  /// in every field) instead of dropping them and counting them under skip_duplicate_event.
  bool keep_duplicates = false;
};

/// Why duplicated events of an input were dropped (input_info::skipped).
inline constexpr std::string_view skip_duplicate_event = "duplicate_event";

/// Where a trace file's name carries a rank number: the last `rank`, `worker`, `proc`, `gpu` or
/// `node` followed by digits (`run3.rank-1.json`: 1), or a name that is a number alone with its
/// extensions (`3.json`). `position` and `length` locate the digits.
struct rank_token {
  std::size_t position = 0, length = 0;
  std::int32_t rank = 0;
};
[[nodiscard]] std::optional<rank_token> rank_in_file_name(std::string const& file_name);

/// An input whose times lie far from the other inputs' of its job: likely a clock of its own
/// (Kineto without baseTimeNanoseconds counts from the trace's start, nsys from its session's).
struct clock_outlier {
  std::size_t input = 0;      ///< index into event_table::inputs()
  std::int64_t apart_ns = 0;  ///< from its window to the nearest window of the main group
};
/// Inputs whose windows (first start to last end) are more than `threshold_ns` from the largest
/// group of inputs whose windows lie within `threshold_ns` of each other (the later group on a
/// tie: relative clocks start near zero). Empty for one input, or when all agree.
[[nodiscard]] std::vector<clock_outlier> find_clock_outliers(event_table const& table,
                                                             std::int64_t threshold_ns);
inline constexpr std::int64_t clock_outlier_threshold_ns = std::int64_t{3600} * 1'000'000'000;

/// One reader: its name, whether the first bytes of a file are its format, and the reader.
/// The formats are listed once, in src/ingest/readers.cpp: adding a reader is its own file
/// plus one line there.
struct reader_entry {
  std::string_view name;                 ///< "nsys-sqlite", "chrome-json"
  bool (*sniff)(std::string_view head);  ///< the file's first bytes (up to 64)
  void (*read)(std::string const& path, event_table& table, read_options const& options);
};
[[nodiscard]] std::span<reader_entry const> readers() noexcept;

/// The name of the reader whose format the first bytes of `path` are, or "" when none is.
/// Throws input_error when the file cannot be opened or is empty.
[[nodiscard]] std::string_view detect_format(std::string const& path);

/// Reads one file into `table`. A fatal defect throws input_error and leaves `table` as it
/// was before the call.
void read_input(std::string const& path, event_table& table, read_options const& options);

/// Reads every input (directories expanded, files taken in path order) into `table`.
/// Without `keep_going` the first fatal error is thrown; with it each failing file is left out,
/// its error returned, and reading goes on. Two inputs claiming one rank are an error, whatever
/// their formats (options.ranks_from may renumber them first). Duplicated events are dropped
/// and counted (options.keep_duplicates).
std::vector<input_error> read_inputs(std::vector<std::string> const& paths, event_table& table,
                                     read_options const& options, bool keep_going);

/// Expands directories into the files in them (sorted by path), keeps files as given.
[[nodiscard]] std::vector<std::string> expand_inputs(std::vector<std::string> const& paths);

}  // namespace tracesweep
