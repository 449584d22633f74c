// SPDX-License-Identifier: Apache-2.0
// A backend that counts the calls it forwards to the CPU backend: tests assert how often an
// analysis asks the backend for each primitive.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <tracesweep/backend.hpp>

namespace tracesweep::test {

/// A backend that counts the calls it forwards to the CPU backend.
class counting_backend final : public backend {
 public:
  /// Forwarding to a CPU backend of `threads` threads.
  explicit counting_backend(unsigned threads = 1) : _cpu(make_cpu_backend(threads)) {}
  std::map<std::string, int> calls;
  [[nodiscard]] std::string_view name() const noexcept override { return "counting"; }

 protected:
  void do_sort_pairs(std::span<std::uint64_t> k, std::span<std::uint32_t> v, int bits) override {
    ++calls["sort_pairs"];
    _cpu->sort_pairs(k, v, bits);
  }
  interval_union do_union_by_group(interval_view in) override {
    ++calls["union_by_group"];
    return _cpu->union_by_group(in);
  }
  interval_union do_union_of_row_groups(row_groups const& in) override {
    ++calls["union_of_row_groups"];
    return _cpu->union_of_row_groups(in);
  }
  std::vector<gap> do_gap_scan(interval_union const& u, group_windows w, std::int64_t min_gap,
                               std::size_t top) override {
    ++calls["gap_scan"];
    return _cpu->gap_scan(u, w, min_gap, top);
  }
  std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const> k,
                                              std::span<std::int64_t const> v,
                                              std::span<double const> q) override {
    ++calls["segmented_stats"];
    return _cpu->segmented_stats(k, v, q);
  }
  std::vector<std::int64_t> do_intersection_by_group(interval_union const& a,
                                                     interval_union const& b,
                                                     std::size_t n) override {
    ++calls["intersection_by_group"];
    return _cpu->intersection_by_group(a, b, n);
  }
  activity_result do_device_activity(activity_request const& r) override {
    ++calls["device_activity"];
    return _cpu->device_activity(r);
  }

 private:
  std::unique_ptr<backend> _cpu;
};

}  // namespace tracesweep::test
