// SPDX-License-Identifier: Apache-2.0
// Which of the model's step windows (trace_model::step_windows) holds a moment.
#include <algorithm>

#include "analysis/diagnose/diagnose_parts.hpp"

namespace tracesweep::diagnose_detail {

std::int64_t step_at(std::span<step_window const> steps, std::int64_t at) {
  auto const k =
      std::upper_bound(steps.begin(), steps.end(), at,
                       [](std::int64_t v, step_window const& s) { return v < s.start; }) -
      steps.begin();
  if (k == 0) return -1;
  auto const idx = static_cast<std::size_t>(k - 1);
  return steps[idx].end > at ? static_cast<std::int64_t>(idx) : -1;
}

}  // namespace tracesweep::diagnose_detail
