// SPDX-License-Identifier: Apache-2.0
// The CPU reference backend: forwards each call to its primitive on a fixed thread budget.
// Arguments are checked once by the public backend calls (src/backends/backend.cpp).
#include <algorithm>

#include <tracesweep/backend.hpp>
#include <tracesweep/task_threads.hpp>

#include "primitives.hpp"
#include "radix_sort.hpp"

namespace tracesweep {
namespace {

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(unsigned threads) : _threads(threads) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "cpu"; }
  /// Every primitive here is a pure function of its arguments: calls may run at once.
  [[nodiscard]] unsigned host_threads() const noexcept override { return _threads; }

 private:
  void do_sort_pairs(std::span<std::uint64_t> keys, std::span<std::uint32_t> values,
                     int end_bit) override {
    cpu::radix_sort<std::uint32_t>(keys, values, end_bit, _threads);
  }

  interval_union do_union_by_group(interval_view intervals) override {
    return cpu::union_by_group(intervals, _threads);
  }

  interval_union do_union_of_rows(row_intervals const& in) override {
    return cpu::union_of_rows(in.start, in.end, in.rows, in.group, _threads);
  }

  interval_union do_union_of_row_groups(row_groups const& in) override {
    if (auto u = cpu::union_in_row_order(in.start, in.end, in.group, in.groups, _threads))
      return std::move(*u);
    return backend::do_union_of_row_groups(in);
  }

  std::vector<gap> do_gap_scan(interval_union const& u, group_windows windows, std::int64_t min_gap,
                               std::size_t top_per_group) override {
    return cpu::gap_scan(u, windows, min_gap, top_per_group, _threads);
  }

  std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const> keys,
                                              std::span<std::int64_t const> values,
                                              std::span<double const> quantiles) override {
    return cpu::segmented_stats(keys, values, quantiles, _threads);
  }

  std::vector<exact_stats> do_duration_stats(row_durations const& in,
                                             std::span<double const> quantiles) override {
    return cpu::duration_stats(in.start, in.end, in.rows, in.keys, quantiles, _threads);
  }

  std::vector<std::int64_t> do_intersection_by_group(interval_union const& a,
                                                     interval_union const& b,
                                                     std::size_t group_count) override {
    return cpu::intersection_by_group(a, b, group_count);
  }

  // do_device_activity: the default, compose_device_activity over these primitives on the
  // host columns (no copies beyond the gathered rows each union needs).
  unsigned _threads;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(unsigned threads) {
  return std::make_unique<cpu_backend>(resolve_threads(threads));
}

}  // namespace tracesweep
