// SPDX-License-Identifier: Apache-2.0
// What the job-level tables share: which API call launched each device row (same input, same
// correlation), Paddle's rule that unlaunched device rows are dropped, the host events of each
// thread, and the kernel time an interval launched (Paddle: calls of one thread lying inside it;
// Kineto: calls of any thread of the rank starting inside it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tracesweep/backend.hpp>
#include <tracesweep/event_table.hpp>

namespace tracesweep::tables {

/// Rows of the table seen the way Paddle's node tree sees them.
class event_links {
 public:
  explicit event_links(event_table const& t);

  [[nodiscard]] event_table const& table() const noexcept { return _t; }
  /// Ranks present, ascending.
  [[nodiscard]] std::vector<std::int32_t> const& ranks() const noexcept { return _ranks; }
  /// Whether row `i` takes part at all (Paddle drops device rows no API call launched).
  [[nodiscard]] bool kept(std::size_t i) const noexcept { return _kept[i] != 0; }
  /// The api_call row that launched device row `i`, or -1.
  [[nodiscard]] std::int64_t launcher(std::size_t i) const noexcept { return _launcher[i]; }
  [[nodiscard]] bool paddle(std::size_t i) const noexcept {
    return _paddle_input[static_cast<std::size_t>(_t.input[i])] != 0;
  }
  /// Any row of rank `r` comes from a Paddle export.
  [[nodiscard]] bool paddle_rank(std::int32_t r) const;

  /// Kernel time (kernel rows only, durations added) launched by API calls of thread
  /// (input, thread) that lie inside [start, end].
  [[nodiscard]] std::int64_t kernel_time_inside(std::int32_t input, std::int64_t thread,
                                                std::int64_t start, std::int64_t end) const;

  /// Kineto's rule: kernel time (kernel rows only, durations added) launched by API calls of any
  /// host thread of rank `rank` whose start lies in [start, end) (half-open, so back-to-back steps
  /// never share a launch).
  [[nodiscard]] std::int64_t kernel_time_launched_in(std::int32_t rank, std::int64_t start,
                                                     std::int64_t end) const;

  /// Type label of a row: the category, or the step / stage the name gave it.
  [[nodiscard]] std::string type_label(std::size_t i) const;

 private:
  struct thread_calls {
    std::vector<std::int64_t> start, end, kernel_ns;  // API calls sorted by start
  };
  event_table const& _t;
  std::vector<std::int32_t> _ranks;
  std::vector<std::uint8_t> _kept;
  std::vector<std::int64_t> _launcher;
  std::vector<std::uint8_t> _paddle_input;
  std::map<std::pair<std::int32_t, std::int64_t>, thread_calls> _calls;
  struct rank_calls {
    std::vector<std::int64_t> start;      // API call starts of the rank, ascending
    std::vector<std::int64_t> kernel_ns;  // prefix sums: kernel_ns[k] = Σ launched by calls < k
  };
  std::vector<rank_calls> _rank_calls;  // by index in _ranks
};

/// The rank's denominator: |∪ step intervals| when it has steps, else max end − min start.
struct denominator {
  std::int64_t total_ns = 0;
  bool from_steps = false;
};

/// One per rank of links.ranks(), same order; unions computed by the backend.
[[nodiscard]] std::vector<denominator> denominators(event_links const& links, backend& be);

/// Index of rank `r` in links.ranks().
[[nodiscard]] std::size_t rank_index(event_links const& links, std::int32_t r);

/// Kinds Paddle's Model Summary lists as stages (outermost only).
[[nodiscard]] constexpr bool is_stage(event_kind k) noexcept {
  return k == event_kind::data_loader || k == event_kind::forward || k == event_kind::backward ||
         k == event_kind::optimizer;
}

}  // namespace tracesweep::tables
