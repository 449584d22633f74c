// SPDX-License-Identifier: Apache-2.0
// How diff pairs the ranks of two jobs: by equal rank numbers, or by order (the i-th smallest
// rank of one side with the i-th smallest of the other).
#pragma once

#include <string>

#include <tracesweep/fleet/job_diff.hpp>

namespace tracesweep::fleet {

/// `after` as diff compares it with `before`: with `how` = order, or automatic and the two sides'
/// rank numbers (of their devices, kernels and steps) differ, its ranks renumbered to `before`'s
/// by order (ranks past `before`'s count numbered after `before`'s largest); else as it is.
/// `note`: one line saying how the ranks were paired where their numbers differ, else empty.
[[nodiscard]] job_record pair_ranks(job_record const& before, job_record const& after,
                                    rank_pairing how, std::string& note);

}  // namespace tracesweep::fleet
