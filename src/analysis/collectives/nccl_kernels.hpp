// SPDX-License-Identifier: Apache-2.0
// The NCCL kernel rows of a model, the one walk the matching and the collectives table share.
#pragma once

#include <cstdint>
#include <vector>

#include <tracesweep/analysis/collectives.hpp>

namespace tracesweep::collectives_detail {

/// Calls `visit(row, kind)` for each kernel row on a GPU whose name is an NCCL kernel's, in row
/// order, with the kind its name says (collective_kind_of, asked once per name).
template <class Visit>
void for_each_nccl_kernel(trace_model const& model, Visit&& visit) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  std::vector<std::int8_t> kind_of_name(t.strings().size(), -1);  // -1 unknown, -2 no NCCL
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != event_kind::kernel || groups[i] == no_device) continue;
    auto& known = kind_of_name[t.name[i]];
    if (known == -1) {
      auto const k = collective_kind_of(t.strings().at(t.name[i]));
      known = k ? static_cast<std::int8_t>(*k) : std::int8_t{-2};
    }
    if (known >= 0) visit(i, static_cast<collective_kind>(known));
  }
}

}  // namespace tracesweep::collectives_detail
