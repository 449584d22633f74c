// SPDX-License-Identifier: Apache-2.0
// A backend whose every primitive throws a given error: what a failing device, an allocation
// failure or an overflow inside a primitive looks like to the analyses and the CLI.
#pragma once

#include <exception>
#include <memory>

#include <tracesweep/backend.hpp>

namespace tracesweep::test {

class failing_backend final : public backend {
 public:
  explicit failing_backend(std::exception_ptr e) : _e(std::move(e)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "failing"; }

 protected:
  void do_sort_pairs(std::span<std::uint64_t>, std::span<std::uint32_t>, int) override { fail(); }
  interval_union do_union_by_group(interval_view) override { fail(); }
  std::vector<gap> do_gap_scan(interval_union const&, group_windows, std::int64_t,
                               std::size_t) override {
    fail();
  }
  std::vector<exact_stats> do_segmented_stats(std::span<std::uint32_t const>,
                                              std::span<std::int64_t const>,
                                              std::span<double const>) override {
    fail();
  }
  std::vector<std::int64_t> do_intersection_by_group(interval_union const&, interval_union const&,
                                                     std::size_t) override {
    fail();
  }
  activity_result do_device_activity(activity_request const&) override { fail(); }

 private:
  [[noreturn]] void fail() const { std::rethrow_exception(_e); }
  std::exception_ptr _e;
};

inline std::unique_ptr<backend> make_failing_backend(std::exception_ptr e) {
  return std::make_unique<failing_backend>(std::move(e));
}

}  // namespace tracesweep::test
