// SPDX-License-Identifier: Apache-2.0
// Host range names as text shows them.
#pragma once

#include <string_view>

namespace tracesweep::output {

/// A host range's name without the suffixes torch.autograd.profiler.emit_nvtx appends, for text:
/// "aten::mul, seq = 47307, op_id = 998144" → "aten::mul" (from the first ", seq = N" or
/// ", op_id = N" on); any other name as it is. JSON and CSV keep the names whole.
[[nodiscard]] std::string_view without_emit_nvtx_suffixes(std::string_view name);

}  // namespace tracesweep::output
