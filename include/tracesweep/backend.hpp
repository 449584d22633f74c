// SPDX-License-Identifier: Apache-2.0
// The analysis primitives behind one interface. The CPU backend is the reference that runs
// everywhere; the CUDA backend implements the same calls with bit-identical results.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/intervals.hpp>
#include <tracesweep/stats.hpp>

namespace tracesweep {

class backend {
 public:
  virtual ~backend() = default;
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;

  /// Stable sort of `keys` ascending, permuting `values` alongside. Only bits
  /// [0, end_bit) of the keys may be set (end_bit = 64 when unknown).
  virtual void sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                          int end_bit = 64) = 0;

  /// Union per group. Touching intervals merge; zero-length intervals add nothing.
  [[nodiscard]] virtual interval_union union_by_group(interval_view intervals) = 0;

  /// Holes of `u` inside each group's window that last at least `min_gap` ns, the longest
  /// `top_per_group` per group (0 = all), ordered by (group, duration desc, start).
  [[nodiscard]] virtual std::vector<gap> gap_scan(interval_union const& u, group_windows windows,
                                                  std::int64_t min_gap,
                                                  std::size_t top_per_group) = 0;

  /// Exact statistics of `values` per distinct key, ordered by key. `quantiles` in [0, 1].
  [[nodiscard]] virtual std::vector<exact_stats> segmented_stats(
      std::span<std::uint32_t const> keys, std::span<std::int64_t const> values,
      std::span<double const> quantiles) = 0;

  /// |a ∩ b| per group (index = group id, `group_count` entries).
  [[nodiscard]] virtual std::vector<std::int64_t> intersection_by_group(
      interval_union const& a, interval_union const& b, std::size_t group_count) = 0;
};

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
/// handles 10^6 rows in a few milliseconds (docs/design-and-performance.md §1.9, §5.2).
/// To be measured on an H200 with bench/device-check.sh.
inline constexpr std::size_t cuda_auto_min_rows = 1'000'000;

/// Everything make_backend may need to know.
struct backend_request {
  backend_choice choice = backend_choice::automatic;
  unsigned threads = 0;
  /// Rows the analysis will touch (the event table's size); `automatic` stays on the CPU below
  /// cuda_auto_min_rows. The default means "large".
  std::size_t work_rows = static_cast<std::size_t>(-1);
  /// Device memory a CUDA primitive may use, in bytes (0 = most of what is free); forces chunking.
  std::size_t device_memory_limit = 0;
};
[[nodiscard]] std::unique_ptr<backend> make_backend(backend_request const& request,
                                                    std::string* why = nullptr);

/// Whether a CUDA device is usable: empty when it is, else one line saying why not.
[[nodiscard]] std::string cuda_unavailable_reason();

}  // namespace tracesweep
