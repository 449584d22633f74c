// SPDX-License-Identifier: Apache-2.0
// The analysis primitives behind one interface. The CPU backend is the reference that runs
// everywhere; the CUDA backend implements the same calls with bit-identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/event_kind.hpp>
#include <tracesweep/exact_stats.hpp>
#include <tracesweep/intervals.hpp>

namespace tracesweep {

/// What a summary asks of the device activity of a trace: the columns it reads, as they are in
/// the event table and the trace model. Rows whose kind is not device activity (kernel, memcpy,
/// memset) are ignored; the others must have a dense device id below `device_count`.
struct activity_request {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  std::span<event_kind const> kind;
  std::span<group_id const> device_group;  ///< dense device id per row (trace_model)
  std::span<std::uint32_t const> name;     ///< string id per row
  /// Per string id: nonzero for communication kernels; ids past its end are computation.
  std::span<std::uint8_t const> communication;
  std::size_t device_count = 0;
  std::int64_t min_gap = 0;       ///< gap_scan's min_gap
  std::size_t top_per_group = 0;  ///< gap_scan's top_per_group (0 = all)
  /// Optional: the device activity rows ordered by (device, start), as a caller that needs that
  /// order has it anyway; where the columns are not in start order per device and class, the
  /// unions gather their rows in that order (a composition over the CPU backend sorts nothing
  /// more). Empty = not known.
  std::span<std::size_t const> order = {};
  /// Also return the unions themselves (activity, kernels, communication and computation
  /// kernels), for analyses that ask how much of a window they cover.
  bool keep_unions = false;
  /// Also return the union of the computation kernels, where the backend holds it on the host
  /// anyway (the CPU composition does; the CUDA backend does not copy it down for this):
  /// activity_result::computation_union_kept says whether it did.
  bool keep_computation_union = false;
  /// Optional: the stream per row. Where each stream lists its rows in start order (nsys
  /// exports do), the unions of a device merge its streams' rows instead of sorting them.
  std::span<std::int64_t const> stream = {};
};

/// The numbers of one device (index = dense device id). A device without activity rows has the
/// empty window [INT64_MAX, INT64_MIN) and zeros elsewhere.
struct device_activity_row {
  std::int64_t window_start = std::numeric_limits<std::int64_t>::max();
  std::int64_t window_end = std::numeric_limits<std::int64_t>::min();
  std::int64_t busy = 0;           ///< |union of activity|
  std::int64_t kernel_busy = 0;    ///< |union of kernels|
  std::int64_t memcpy_busy = 0;    ///< |union of memcpys|
  std::int64_t memset_busy = 0;    ///< |union of memsets|
  std::int64_t communication = 0;  ///< |union of communication kernels|
  std::int64_t computation = 0;    ///< |union of the other kernels|
  std::int64_t overlap = 0;        ///< |communication ∩ computation|
  std::int64_t kernel_count = 0;
  friend bool operator==(device_activity_row const&, device_activity_row const&) = default;
};

/// The result tables of backend::device_activity.
struct activity_result {
  std::vector<device_activity_row> devices;  ///< device_count rows
  std::vector<gap> gaps;             ///< gap_scan of the activity union over each device's window
  std::vector<exact_stats> kernels;  ///< segmented_stats of kernel durations by name id
  /// With keep_unions, grouped by dense device id; empty otherwise.
  interval_union activity_union;
  interval_union kernel_union;
  interval_union communication_union;  ///< communication kernels
  interval_union computation_union;    ///< the other kernels
  /// Whether computation_union holds the union (with keep_unions, or keep_computation_union
  /// where the backend kept it), even an empty one.
  bool computation_union_kept = false;
};

/// Rows of whole start and end columns (as a job keeps them, see backend::hold) taken as
/// intervals in groups: `rows` names the rows taken, `group` each taken row's group.
struct row_intervals {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  std::span<std::size_t const> rows;
  std::span<group_id const> group;
};

/// A group for every row of whole start and end columns (as a job keeps them, see backend::hold):
/// row i is taken in group `group[i]`, below `groups`, or not at all (no_group). A table-long
/// column of 4 bytes a row where a list of the rows taken would need 12.
struct row_groups {
  static constexpr group_id no_group = ~group_id{0};
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  std::span<group_id const> group;
  std::size_t groups = 0;
};

/// Rows of whole start and end columns (as a job keeps them, see backend::hold) with a key each,
/// for statistics of their durations (end − start).
struct row_durations {
  std::span<std::int64_t const> start;
  std::span<std::int64_t const> end;
  std::span<std::size_t const> rows;
  std::span<std::uint32_t const> keys;
  /// Every row of the columns in order, `rows` empty and `keys` as long as the columns: no list
  /// of row numbers (8 bytes a row) where the caller takes them all.
  bool every_row = false;
  /// The number of row k.
  [[nodiscard]] std::size_t row(std::size_t k) const noexcept { return every_row ? k : rows[k]; }
};

/// The analysis primitives. Each public call checks its arguments once (throwing
/// std::invalid_argument) and then runs the backend's implementation (the do_ functions), so
/// the implementations may assume valid input.
class backend {
 public:
  virtual ~backend() = default;
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  /// The host threads this backend's work may take (--threads): what an analysis may use for
  /// host work of its own beside the backend's calls. Calls on one backend may run at once from
  /// that many threads only where this is above 1.
  [[nodiscard]] virtual unsigned host_threads() const noexcept { return 1; }

  /// Stable sort of `keys` ascending, permuting `values` alongside. Only bits
  /// [0, end_bit) of the keys may be set (end_bit = 64 when unknown).
  void sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values, int end_bit = 64);

  /// Union per group. Touching intervals merge; zero-length intervals add nothing.
  [[nodiscard]] interval_union union_by_group(interval_view intervals);

  /// union_by_group of the rows `in` takes. On a backend that holds the start and end columns
  /// (hold), only the rows and their groups travel to the device.
  [[nodiscard]] interval_union union_of_rows(row_intervals const& in);

  /// union_by_group of the rows `in` takes. Meant for rows whose groups interleave but each come
  /// in start order (the rows of an nsys export's tables): the CPU backend then sweeps the
  /// columns once, without a list of rows; any order gives the same union.
  [[nodiscard]] interval_union union_of_row_groups(row_groups const& in);

  /// Declares that `column` (a column a job reads in many calls: the event table's, the
  /// model's) stays alive and unchanged until release(column). A backend with memory of its
  /// own copies it there at its first use and reads that copy in every later call whose input
  /// is the column or a part of it; the CPU backend ignores it. Holds of one column nest.
  template <class T>
  void hold(std::span<T const> column) {
    do_hold(std::as_bytes(column));
  }
  /// Ends one hold of `column`; the copy is freed with its last hold.
  template <class T>
  void release(std::span<T const> column) noexcept {
    do_release(std::as_bytes(column));
  }

  /// Holes of `u` inside each group's window that last at least `min_gap` ns, the longest
  /// `top_per_group` per group (0 = all), ordered by (group, duration desc, start). `u` must be
  /// sorted by group and every group must have a window.
  [[nodiscard]] std::vector<gap> gap_scan(interval_union const& u, group_windows windows,
                                          std::int64_t min_gap, std::size_t top_per_group);

  /// Exact statistics of `values` per distinct key, ordered by key. `quantiles` in [0, 1].
  [[nodiscard]] std::vector<exact_stats> segmented_stats(std::span<std::uint32_t const> keys,
                                                         std::span<std::int64_t const> values,
                                                         std::span<double const> quantiles);

  /// segmented_stats of the durations of the rows `in` takes, by their keys. On a backend that
  /// holds the start and end columns (hold), only the rows and keys travel to the device.
  [[nodiscard]] std::vector<exact_stats> duration_stats(row_durations const& in,
                                                        std::span<double const> quantiles);

  /// |a ∩ b| per group (index = group id, `group_count` entries).
  [[nodiscard]] std::vector<std::int64_t> intersection_by_group(interval_union const& a,
                                                                interval_union const& b,
                                                                std::size_t group_count);

  /// The device-activity part of a summary in one call: row selection, the unions per device
  /// (activity; per kind; communication and computation kernels), their intersection, the gap
  /// scan over the activity union inside each device's window (the window spans the device's
  /// activity rows) and the statistics of kernel durations by name. Equal on every backend to
  /// compose_device_activity over the CPU backend.
  [[nodiscard]] activity_result device_activity(activity_request const& request);

 protected:
  virtual void do_sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                             int end_bit) = 0;
  virtual interval_union do_union_by_group(interval_view intervals) = 0;
  /// Defaults to gathering the rows on the host and do_union_by_group.
  virtual interval_union do_union_of_rows(row_intervals const& in);
  /// Defaults to the taken rows listed in row order and do_union_of_rows.
  virtual interval_union do_union_of_row_groups(row_groups const& in);
  /// Defaults to the durations computed on the host and do_segmented_stats.
  virtual std::vector<exact_stats> do_duration_stats(row_durations const& in,
                                                     std::span<double const> quantiles);
  virtual void do_hold(std::span<std::byte const>) {}
  virtual void do_release(std::span<std::byte const>) noexcept {}
  virtual std::vector<gap> do_gap_scan(interval_union const& u, group_windows windows,
                                       std::int64_t min_gap, std::size_t top_per_group) = 0;
  virtual std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const> keys,
                                                      std::span<std::int64_t const> values,
                                                      std::span<double const> quantiles) = 0;
  virtual std::vector<std::int64_t> do_intersection_by_group(interval_union const& a,
                                                             interval_union const& b,
                                                             std::size_t group_count) = 0;
  /// Defaults to compose_device_activity(*this, request).
  virtual activity_result do_device_activity(activity_request const& request);
};

/// device_activity built from the other primitives of `be` over host memory: the selected rows
/// are gathered on the host and each union, the intersection, the gap scan and the statistics
/// is one primitive call. The CPU backend's implementation, and the CUDA backend's when the
/// resident working set does not fit its memory limit. `request` must be valid.
[[nodiscard]] activity_result compose_device_activity(backend& be, activity_request const& request);

enum class backend_choice { automatic, cpu, cuda };

/// The CPU reference backend on `threads` threads (0 = all hardware threads).
[[nodiscard]] std::unique_ptr<backend> make_cpu_backend(unsigned threads);

/// Picks a backend. `cuda` without a usable GPU throws backend_unavailable; `automatic` falls
/// back to the CPU and writes why into `why` (for -v).
[[nodiscard]] std::unique_ptr<backend> make_backend(backend_choice choice, unsigned threads,
                                                    std::string* why = nullptr);

/// Rows of work from which `automatic` picks the GPU when one is usable. An estimate, not a
/// measurement: a CUB sort of 2^16 keys is launch-bound (30–130 µs) and creating the CUDA
/// context, pool and pinned staging costs tens of milliseconds, while the all-core CPU backend
/// handles 10^6 rows in a few milliseconds (../shared/docs/design-and-performance.md §1.9, §5.2).
/// To be measured on an H200 with bench/device-check.sh.
inline constexpr std::size_t cuda_auto_min_rows = 1'000'000;

/// Everything make_backend may need to know.
struct backend_request {
  backend_choice choice = backend_choice::automatic;
  unsigned threads = 0;
  /// Rows the analysis will touch (the event table's size); `automatic` stays on the CPU below
  /// cuda_auto_min_rows. The default means "large".
  std::size_t work_rows = static_cast<std::size_t>(-1);
  /// Device memory the process may use with the CUDA backend, in bytes (0 = most of what is
  /// free, measured once); forces chunking.
  std::size_t device_memory_limit = 0;
  /// Backends in use at once (a scan's workers): a CUDA backend gets 1/workers of the memory.
  unsigned workers = 1;
};
[[nodiscard]] std::unique_ptr<backend> make_backend(backend_request const& request,
                                                    std::string* why = nullptr);

/// Whether a CUDA device is usable: empty when it is, else one line saying why not.
[[nodiscard]] std::string cuda_unavailable_reason();

/// Pinned host memory for staging host↔device copies that each thread using the CUDA backend
/// keeps while it lives (one buffer per worker, reused by its backends).
inline constexpr std::size_t cuda_staging_bytes = std::size_t{32} << 20;

/// Host memory each worker of a process that may use the CUDA backend keeps outside its jobs:
/// cuda_staging_bytes when a CUDA device is usable, else 0.
[[nodiscard]] std::size_t cuda_host_bytes_per_worker();

}  // namespace tracesweep
